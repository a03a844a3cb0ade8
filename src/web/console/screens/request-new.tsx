import { Page } from '../ui';

export function NewRequestScreen() {
  return <Page title="Coming next">Not built yet.</Page>;
}
