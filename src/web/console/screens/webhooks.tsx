import { Page } from '../ui';

export function WebhooksScreen() {
  return <Page title="Webhooks">Not built yet.</Page>;
}

export function WebhookScreen({ id }: { id: string }) {
  return <Page title="Webhook">{id}</Page>;
}
