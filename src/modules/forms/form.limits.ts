// Limits of forms (docs/operations.md, Limits): the forms themselves, the form part of template and request
// items (which may change a field's default or read-only flag), and a recipient's answers.

/** Characters of a form's name (at least one that is not blank). */
export const MAX_FORM_NAME = 255;
/** Fields of one form (at least one). */
export const MAX_FORM_FIELDS = 100;
/** Characters of a form field's name (at least one that is not blank). */
export const MAX_FORM_FIELD_NAME = 200;
/** Characters of a field's default value, and of a recipient's answer to a field. */
export const MAX_FORM_VALUE = 5000;
