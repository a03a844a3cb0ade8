import { AppError, type UserError, type UserErrorCode } from '../errors/app-error';
import { MAX_DATE, MAX_EMAIL, MIN_DATE } from '../limits';

export type FieldPath = (string | number)[];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{3,30}$/;
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/u;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * Collects every problem with an input before failing, so a client learns all it must fix at once.
 * Services check here whatever the transport already checked, because GraphQL and REST both reach them.
 */
export class InputCheck {
  readonly errors: UserError[] = [];

  add(field: FieldPath, message: string, code: UserErrorCode): this {
    this.errors.push({ field: field.map(String), message, code });
    return this;
  }

  /** Text that PostgreSQL will store: no NUL characters, within `max` characters. */
  text(
    field: FieldPath,
    value: string | null | undefined,
    options: { max: number; min?: number; required?: boolean },
  ): this {
    if (value === undefined || value === null) {
      if (options.required) this.add(field, 'Field required', 'REQUIRED');
      return this;
    }
    if (value.includes('\u0000')) return this.add(field, 'Text must not contain NUL characters', 'INVALID');
    // PostgreSQL would store an unpaired surrogate as U+FFFD: the text read back would differ.
    if (UNPAIRED_SURROGATE.test(value)) return this.add(field, 'Text must not contain unpaired surrogates', 'INVALID');
    const length = [...value].length;
    if (length > options.max) return this.add(field, `Text should have at most ${options.max} characters`, 'TOO_LONG');
    if (options.min !== undefined && value.trim().length < options.min) {
      return this.add(
        field,
        `Text should have at least ${options.min} non-blank character${options.min === 1 ? '' : 's'}`,
        'TOO_SHORT',
      );
    }
    return this;
  }

  email(field: FieldPath, value: string | null | undefined): this {
    if (value == null) return this;
    if (value.length > MAX_EMAIL || !EMAIL.test(value))
      return this.add(field, 'Input should be an email address', 'INVALID');
    return this;
  }

  phone(field: FieldPath, value: string | null | undefined): this {
    if (value == null) return this;
    if (!PHONE.test(value)) return this.add(field, 'Input should be a phone number such as +15551234567', 'INVALID');
    return this;
  }

  int(field: FieldPath, value: number | null | undefined, options: { min: number; max: number }): this {
    if (value == null) return this;
    if (!Number.isInteger(value) || value < options.min || value > options.max) {
      return this.add(field, `Input should be an integer from ${options.min} to ${options.max}`, 'OUT_OF_RANGE');
    }
    return this;
  }

  date(field: FieldPath, value: Date | null | undefined): this {
    if (value == null) return this;
    const time = value.getTime();
    if (Number.isNaN(time) || time < MIN_DATE || time > MAX_DATE) {
      return this.add(
        field,
        `Input should be a date between ${new Date(MIN_DATE).getUTCFullYear()} and ${new Date(MAX_DATE).getUTCFullYear()}`,
        'OUT_OF_RANGE',
      );
    }
    return this;
  }

  uuid(field: FieldPath, value: string | null | undefined): this {
    if (value == null) return this;
    if (!isUuid(value)) return this.add(field, 'Input should be a valid UUID', 'INVALID');
    return this;
  }

  count(field: FieldPath, value: unknown[] | null | undefined, options: { max: number; min?: number }): this {
    if (value == null) return this;
    if (value.length > options.max) return this.add(field, `List should have at most ${options.max} items`, 'TOO_MANY');
    if (options.min !== undefined && value.length < options.min) {
      return this.add(
        field,
        `List should have at least ${options.min} item${options.min === 1 ? '' : 's'}`,
        'REQUIRED',
      );
    }
    return this;
  }

  /** A flat map of strings, as `user_metadata` is: jsonb refuses NUL characters too. */
  stringMap(field: FieldPath, value: unknown, options: { maxKeys: number; maxKey: number; maxValue: number }): this {
    if (value == null) return this;
    if (typeof value !== 'object' || Array.isArray(value)) {
      return this.add(field, 'Input should be an object of string values', 'INVALID');
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > options.maxKeys) {
      return this.add(field, `Object should have at most ${options.maxKeys} keys`, 'TOO_MANY');
    }
    for (const [key, entry] of entries) {
      if (typeof entry !== 'string') {
        this.add([...field, key], 'Input should be a valid string', 'INVALID');
        continue;
      }
      if (key.length === 0 || key.length > options.maxKey || key.includes('\u0000') || UNPAIRED_SURROGATE.test(key)) {
        this.add(
          [...field, key],
          `Keys should have 1 to ${options.maxKey} characters, without NUL or unpaired surrogates`,
          'INVALID',
        );
        continue;
      }
      this.text([...field, key], entry, { max: options.maxValue });
    }
    return this;
  }

  get ok(): boolean {
    return this.errors.length === 0;
  }

  /** Throws the collected problems as one validation error. */
  done(): void {
    if (!this.ok) throw AppError.validation(this.errors);
  }
}
