import { errorsByField, fieldId, fieldKey, instant, localDateTime, unplaced, whole } from '../../src/web/console/forms';
import {
  createInput,
  emptyDraft,
  fromTemplate,
  newItem,
  newRecipient,
  type RequestDraft,
} from '../../src/web/console/screens/request-form';

// The console's forms without a browser: userErrors placed by their paths, and the new-request form's
// strings turned into the `requestCreate` input.

describe('userErrors at their fields', () => {
  it('should key a field path, and make an id of it that a selector and a fragment accept', () => {
    expect(fieldKey(['input', 'recipients', '0', 'email'])).toBe('input.recipients.0.email');
    expect(fieldKey(null)).toBe('');
    expect(fieldId('input.recipients.0.email')).toBe('field-input-recipients-0-email');
  });

  it('should gather the messages of each field, and tell those no control shows', () => {
    const errors = [
      { field: ['input', 'expirationDate'], message: 'Must be later than the due date' },
      { field: ['input', 'recipients', '0', 'email'], message: 'A recipient needs an email or a phone' },
      { field: ['input', 'recipients', '0', 'email'], message: 'Not an email' },
      { field: null, message: 'Something about the whole' },
    ];
    const byField = errorsByField(errors);
    expect(byField.get('input.recipients.0.email')).toEqual(['A recipient needs an email or a phone', 'Not an email']);
    expect(byField.get('')).toEqual(['Something about the whole']);
    expect(unplaced(errors, new Set(['input.expirationDate', 'input.recipients.0.email']))).toEqual([errors[3]]);
  });
});

describe('values of fields', () => {
  it('should read a local date and time as an instant, and back', () => {
    const iso = instant('2026-12-01T17:00');
    expect(iso).toBe(new Date(2026, 11, 1, 17, 0).toISOString());
    expect(localDateTime(iso)).toBe('2026-12-01T17:00');
    expect(instant('2026-12-01')).toBe(new Date(2026, 11, 1).toISOString());
    expect(instant('')).toBeUndefined();
    expect(instant('not a date')).toBeUndefined();
  });

  it('should read a number field, empty or not a number being absent', () => {
    expect(whole('3')).toBe(3);
    expect(whole('-1')).toBe(-1);
    expect(whole('')).toBeUndefined();
    expect(whole(' ')).toBeUndefined();
  });
});

describe('the new request form', () => {
  const filled = (): RequestDraft => ({
    ...emptyDraft(),
    name: '  Welcome pack ',
    items: [
      { ...newItem('UPLOAD'), name: 'Proof of address' },
      { ...newItem('QUESTION'), name: 'Start date?', required: false, description: ' When? ' },
      { ...newItem('E_SIGNATURE'), name: 'Engagement letter', contractId: 'c1' },
      { ...newItem('FORM'), name: 'Details', formId: 'f1', allowFileUpload: true },
    ],
    recipients: [
      { ...newRecipient(), firstName: 'Ana', email: 'ana@example.com', authMethod: 'NONE' },
      {
        ...newRecipient(),
        phone: '+15551234567',
        authMethod: 'SECURITY_QUESTION',
        questionText: 'Pet?',
        questionAnswer: 'Rex',
      },
    ],
    dueDate: '2026-12-01T17:00',
    reminders: '2',
  });

  it('should make the requestCreate input: one kind per item, forms as uploads, empty fields left out', () => {
    expect(createInput(filled(), true)).toEqual({
      name: 'Welcome pack',
      templateId: undefined,
      language: undefined,
      items: [
        { upload: { name: 'Proof of address', description: undefined, required: true } },
        { question: { name: 'Start date?', description: 'When?', required: false } },
        { eSignature: { name: 'Engagement letter', description: undefined, required: true, contractId: 'c1' } },
        {
          upload: {
            name: 'Details',
            description: undefined,
            required: true,
            form: { id: 'f1', allowFileUpload: true },
          },
        },
      ],
      recipients: [
        { firstName: 'Ana', lastName: undefined, email: 'ana@example.com', phone: undefined, authMethod: 'NONE' },
        {
          firstName: undefined,
          lastName: undefined,
          email: undefined,
          phone: '+15551234567',
          authMethod: 'SECURITY_QUESTION',
          questionText: 'Pet?',
          questionAnswer: 'Rex',
        },
      ],
      dueDate: new Date(2026, 11, 1, 17, 0).toISOString(),
      expirationDate: undefined,
      reminders: 2,
      personalMessage: undefined,
      notes: undefined,
      draft: false,
    });
    expect(createInput(filled(), false).draft).toBe(true);
  });

  it('should start from a template: its title, message, reminders, language, due date and items', () => {
    const now = new Date(2026, 10, 1, 9, 0);
    const start = fromTemplate(
      { ...emptyDraft(), recipients: filled().recipients },
      {
        id: 't1',
        name: 'Onboarding',
        defaultTitle: 'Welcome',
        personalMessage: 'Hello',
        reminders: 5,
        dueDateInterval: 7,
        language: 'ES',
        items: [
          { kind: 'UPLOAD', name: 'ID', description: null, required: true, form: null },
          {
            kind: 'UPLOAD',
            name: 'Details',
            description: 'd',
            required: false,
            form: { id: 'f1', allowFileUpload: false },
          },
        ],
      },
      now,
      localDateTime,
    );
    expect(start).toMatchObject({
      templateId: 't1',
      name: 'Welcome',
      personalMessage: 'Hello',
      reminders: '5',
      language: 'ES',
      dueDate: '2026-11-08T09:00',
      items: [
        { kind: 'UPLOAD', name: 'ID', required: true },
        { kind: 'FORM', name: 'Details', description: 'd', formId: 'f1', required: false },
      ],
    });
    // The recipients already written stay.
    expect(start.recipients.map((r) => r.firstName)).toEqual(['Ana', '']);
    expect(createInput(start, true).templateId).toBe('t1');
  });
});
