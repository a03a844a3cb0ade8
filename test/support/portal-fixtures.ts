import type { PortalItem, PortalRequest, SignInInfo } from '../../src/modules/portal/portal.view';

// Recipient API answers as the portal's view functions take them (the shapes of API-DECISIONS,
// "The recipient side"), for tests of the rendering alone.

const NO_BRANDING = { primary_color: null, sender_name: null, support_email: null, logo_url: null };

export function portalItem(overrides: Partial<PortalItem> = {}): PortalItem {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    name: 'Passport',
    description: 'Photo page',
    type: 'UPLOAD',
    required: true,
    status: 'INCOMPLETE',
    is_na: false,
    answer: null,
    attachments: [],
    documents: [],
    signature_fields: [],
    ...overrides,
  };
}

export function portalRequest(overrides: Partial<PortalRequest> = {}): PortalRequest {
  return {
    name: 'Onboarding documents',
    organization_name: 'Acme Accounting',
    owner_name: 'Olga Ops',
    personal_message: 'Welcome aboard!\nPlease send these before your first day.',
    due_date: '2026-12-15T17:00:00.000Z',
    language: 'en',
    state: 'INCOMPLETE_AND_LINK_SENT',
    can_change: true,
    disable_submission_comments: false,
    attachments: [],
    items: [portalItem()],
    submissions: [],
    branding: NO_BRANDING,
    confirmation: null,
    ...overrides,
  };
}

export function signInInfo(steps: SignInInfo['sign_in']['steps'] = ['code']): SignInInfo {
  return {
    request: {
      name: 'Onboarding documents',
      organization_name: 'Acme Accounting',
      owner_name: 'Olga Ops',
      due_date: null,
      language: 'en',
    },
    recipient: { first_name: 'Ana' },
    sign_in: {
      steps,
      question_text: steps.includes('question') ? 'City of birth?' : null,
      code_destination: steps.includes('code') ? 'a***@example.com' : null,
    },
    branding: NO_BRANDING,
  };
}
