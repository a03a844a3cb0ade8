import { Page } from '../ui';

export function TemplatesScreen() {
  return <Page title="Templates">Not built yet.</Page>;
}

export function TemplateScreen({ id }: { id: string }) {
  return <Page title="Template">{id}</Page>;
}
