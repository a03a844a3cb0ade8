import { Page } from '../ui';

export function UsersScreen() {
  return <Page title="Coming next">Not built yet.</Page>;
}
