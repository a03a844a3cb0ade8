import { Page } from '../ui';

export function SettingsScreen() {
  return <Page title="Coming next">Not built yet.</Page>;
}
