import type { RestItemBFragment } from '../../src/generated/operations';
import { restContract } from '../../src/modules/contracts/contract.rest-shapes';
import { itemInputFromRest, restItemA, restItemB } from '../../src/modules/items/item.rest-shapes';
import { languageFromRest, languageToRest, restRequest } from '../../src/modules/requests/request.rest-shapes';
// The request's shape holds the keys its parts contribute when the modules are folded.
import '../../src/modules';

const base = {
  id: 'i1',
  name: 'W-2',
  description: null,
  required: true,
  verified: false,
  isNa: false,
  status: 'INCOMPLETE' as const,
};
const files = {
  attachments: [{ id: 'a1', name: 'guide.pdf', mimeType: 'application/pdf' }],
  documents: [{ id: 'd1', name: 'w2.png', mimeType: 'image/png' }],
};
const person = { email: 'ana@example.com', firstName: 'Ana', lastName: null, phone: null };

describe('item shapes', () => {
  it('shape A: should carry the answer of QUESTION items only, and null elsewhere', () => {
    expect(restItemA({ ...base, kind: 'UPLOAD' } as never)).toEqual({
      id: 'i1',
      name: 'W-2',
      type: 'UPLOAD',
      description: null,
      required: true,
      answer: null,
      verified: false,
      is_na: false,
      form: null,
      form_answers: null,
      upload_rules: null,
    });
    expect(restItemA({ ...base, kind: 'QUESTION', answer: 'Two' } as never).answer).toBe('Two');
  });

  it('shape B: should call uploads STANDARD, list files as {id, name, mime}, and name the first recipient', () => {
    const item = { ...base, ...files, kind: 'UPLOAD', assignedTo: person } as unknown as RestItemBFragment;
    expect(restItemB(item)).toEqual({
      id: 'i1',
      type: 'STANDARD',
      name: 'W-2',
      description: null,
      status: 'INCOMPLETE',
      required: true,
      attachments: [{ id: 'a1', name: 'guide.pdf', mime: 'application/pdf' }],
      assignedTo: person,
      documents: [{ id: 'd1', name: 'w2.png', mime: 'image/png' }],
    });
  });

  it('shape B: should give a question block to QUESTION items and an all-null assignee when nobody is assigned', () => {
    const item = {
      ...base,
      ...files,
      kind: 'QUESTION',
      questionType: 'TEXT',
      answer: null,
      assignedTo: null,
    } as unknown as RestItemBFragment;
    const shaped = restItemB(item);
    expect(shaped.questions).toEqual({ id: 'i1', questionText: 'W-2', questionAnswer: null });
    expect(shaped.assignedTo).toEqual({ email: null, firstName: null, lastName: null, phone: null });
    expect(shaped).not.toHaveProperty('eSignature');
  });

  it("shape B: should show an E_SIGNATURE item's contract, and nothing when it has none", () => {
    const contract = {
      id: 'c1',
      annotations: [
        {
          id: null,
          type: 'STRING',
          defaultValue: 'Acme',
          layout: { page: 1, position: { offsetX: 10, offsetY: 20, anchorPoint: 'TOP_LEFT' }, style: null },
        },
      ],
      fields: [
        {
          id: 'sig',
          type: 'SIGNATURE',
          placeholder: null,
          assignedTo: { email: 'ana@example.com', firstName: null, lastName: null, phone: null },
          layout: null,
        },
      ],
    };
    const withContract = restItemB({
      ...base,
      ...files,
      kind: 'E_SIGNATURE',
      assignedTo: null,
      contract,
    } as unknown as RestItemBFragment);
    expect(withContract.eSignature).toEqual({
      contractId: 'c1',
      // Absent parts are left out, not null, and enum values are lower case as the spec writes them.
      annotations: [
        {
          type: 'string',
          defaultValue: 'Acme',
          layout: { page: 1, position: { offset_x: 10, offset_y: 20, anchor_point: 'TOP_LEFT' } },
        },
      ],
      fields: [{ id: 'sig', type: 'signature', assigned_to: { email: 'ana@example.com' } }],
    });
    expect(
      restItemB({
        ...base,
        ...files,
        kind: 'E_SIGNATURE',
        assignedTo: null,
        contract: null,
      } as unknown as RestItemBFragment),
    ).not.toHaveProperty('eSignature');
    expect(restContract({ id: 'c2', annotations: [], fields: [] } as never)).toMatchObject({
      annotations: [],
      fields: [],
    });
  });

  it('should map item bodies onto the one-of input by type, preferring the camelCase spelling and the question part', () => {
    expect(itemInputFromRest({ name: 'A', type: 'STANDARD', attachment_ids: ['x'] })).toEqual({
      upload: { name: 'A', description: undefined, required: undefined, attachmentIds: ['x'] },
    });
    expect(
      itemInputFromRest({ name: 'A', type: 'UPLOAD', attachments: ['y'], attachment_ids: ['x'] }).upload?.attachmentIds,
    ).toEqual(['y']);
    expect(
      itemInputFromRest({ name: 'S', type: 'E_SIGNATURE', contractId: 'c1', contract_id: 'c2' }).eSignature?.contractId,
    ).toBe('c1');
    expect(itemInputFromRest({ name: 'S', type: 'E_SIGNATURE', contract_id: 'c2' }).eSignature?.contractId).toBe('c2');
    expect(
      itemInputFromRest({ name: 'Q', type: 'QUESTION', answer: 'flat', question: { type: 'TEXT', answer: 'nested' } })
        .question,
    ).toMatchObject({ questionType: 'TEXT', answer: 'nested' });
    expect(itemInputFromRest({ name: 'Q', type: 'QUESTION', answer: 'flat' }).question).toMatchObject({
      questionType: undefined,
      answer: 'flat',
    });
  });
});

describe('languages', () => {
  it('should read en as en-US and map codes both ways', () => {
    expect(languageFromRest('en')).toBe('EN_US');
    expect(languageFromRest('en-US')).toBe('EN_US');
    expect(languageFromRest('pt')).toBe('PT');
    expect(languageToRest('EN_US')).toBe('en-US');
    expect(languageToRest('HT')).toBe('ht');
  });
});

describe('request shape', () => {
  it("should answer the spec's snake_case request: reminders as a string, status and state alike, never deleted", () => {
    const request = {
      id: 'r1',
      name: 'Taxes',
      state: 'INCOMPLETE_AND_LINK_SENT',
      ownerOpened: false,
      userOpened: false,
      verified: false,
      rejected: false,
      dueDate: null,
      expirationDate: null,
      autoCloseAt: null,
      firstReminderDate: null,
      personalMessage: null,
      notes: 'n',
      userMetadata: { a: 'b' },
      language: 'EN_US',
      reminders: 3,
      reminderSchedule: [{ sendAt: '2030-01-01T00:00:00.000Z', message: 'hi' }],
      escalations: [
        {
          id: 'e1',
          requestId: 'r1',
          condition: 'OVERDUE',
          afterDays: 3,
          notifyUser: { id: 'u1' },
          notifyEmail: null,
          status: 'PENDING',
          firedAt: null,
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
      cloudStorageFolder: null,
      cloudStorageProvider: null,
      requireCompleteSubmission: false,
      disableSubmissionComments: false,
      mfaEnabled: false,
      percentComplete: 50,
      owner: { id: 'u1' },
      team: null,
      template: { id: 't1' },
      items: [{ ...base, kind: 'UPLOAD' }],
      attachments: [{ id: 'a1', name: 'g.pdf', mimeType: 'application/pdf' }],
      recipients: [
        {
          requestLink: 'https://x/r/1',
          mfaLink: null,
          auth: { type: 'NONE' },
          password: 'p',
          firstName: 'Ana',
          lastName: null,
          email: 'ana@example.com',
          phone: null,
          language: 'ES',
          contact: { id: 'c1', owner: { id: 'u1' }, team: { id: 'team1' } },
        },
      ],
      collaborators: [
        { id: 'col1', role: 'USER', user: { firstName: 'Carla', lastName: null, email: 'carla@example.com' } },
      ],
      closedAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
    };
    const shaped = restRequest(request as never);
    expect(shaped).toMatchObject({
      owner_id: 'u1',
      team_id: null,
      template_id: 't1',
      status: 'INCOMPLETE_AND_LINK_SENT',
      state: 'INCOMPLETE_AND_LINK_SENT',
      deleted: false,
      reminders: '3',
      language: 'en-US',
      user_metadata: { a: 'b' },
      percent_complete: 50,
      reminder_schedule: [{ send_at: '2030-01-01T00:00:00.000Z', message: 'hi' }],
      escalations: [
        {
          id: 'e1',
          request_id: 'r1',
          condition: 'OVERDUE',
          after_days: '3',
          notify_user_id: 'u1',
          status: 'PENDING',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ],
      attachments: [{ id: 'a1', name: 'g.pdf', mime: 'application/pdf' }],
      collaborators: [{ id: 'col1', role: 'USER', first_name: 'Carla', last_name: null, email: 'carla@example.com' }],
    });
    // A recipient is shown through its contact's id, with the request's own details for it.
    expect(shaped.recipients[0]).toEqual({
      request_link: 'https://x/r/1',
      mfa_link: null,
      auth: { type: 'NONE' },
      password: 'p',
      recipient: {
        id: 'c1',
        first_name: 'Ana',
        last_name: null,
        email: 'ana@example.com',
        phone: null,
        owner_id: 'u1',
        team_id: 'team1',
        language: 'es',
      },
    });
    expect(shaped.items).toEqual([restItemA({ ...base, kind: 'UPLOAD' } as never)]);
  });
});
