import { AppError } from '../../src/kernel/errors/app-error';
import { InputCheck, isUuid } from '../../src/kernel/validation/input-check';

const codes = (check: InputCheck) => check.errors.map((e) => `${e.field.join('.')}:${e.code}`);

describe('InputCheck', () => {
  describe('text', () => {
    it('should report a missing required value, and let a missing optional one pass', () => {
      expect(
        codes(new InputCheck().text(['name'], undefined, { max: 5, required: true }).text(['notes'], null, { max: 5 })),
      ).toEqual(['name:REQUIRED']);
    });

    it('should refuse NUL and unpaired surrogates, which PostgreSQL cannot store as sent', () => {
      const check = new InputCheck().text(['a'], 'x\u0000y', { max: 10 }).text(['b'], 'x\ud800', { max: 10 });
      expect(check.errors).toEqual([
        { field: ['a'], message: 'Text must not contain NUL characters', code: 'INVALID' },
        { field: ['b'], message: 'Text must not contain unpaired surrogates', code: 'INVALID' },
      ]);
    });

    it('should count characters, not UTF-16 units, against the maximum', () => {
      expect(new InputCheck().text(['a'], '😀😀', { max: 2 }).ok).toBe(true);
      expect(new InputCheck().text(['a'], '😀😀😀', { max: 2 }).errors).toEqual([
        { field: ['a'], message: 'Text should have at most 2 characters', code: 'TOO_LONG' },
      ]);
    });

    it('should measure the minimum without surrounding blanks, with a singular or plural message', () => {
      expect(new InputCheck().text(['a'], '   ', { max: 10, min: 1 }).errors).toEqual([
        { field: ['a'], message: 'Text should have at least 1 non-blank character', code: 'TOO_SHORT' },
      ]);
      expect(new InputCheck().text(['a'], ' ab ', { max: 10, min: 3 }).errors[0].message).toBe(
        'Text should have at least 3 non-blank characters',
      );
      expect(new InputCheck().text(['a'], 'abc', { max: 3, min: 3 }).ok).toBe(true);
    });
  });

  it('should check emails, phones and UUIDs, ignoring absent values', () => {
    const check = new InputCheck()
      .email(['e1'], 'ana@example.com')
      .email(['e2'], 'ana@example')
      .email(['e3'], `${'a'.repeat(310)}@example.com`)
      .email(['e4'], null)
      .phone(['p1'], '+1 (555) 123-4567')
      .phone(['p2'], '12')
      .phone(['p3'], undefined)
      .uuid(['u1'], '0F8FAD5B-D9CB-469F-A165-70867728950E')
      .uuid(['u2'], '0f8fad5b-d9cb-469f-a165-70867728950')
      .uuid(['u3'], null);
    expect(codes(check)).toEqual(['e2:INVALID', 'e3:INVALID', 'p2:INVALID', 'u2:INVALID']);
    expect(isUuid('not-a-uuid')).toBe(false);
  });

  it('should keep integers within inclusive bounds', () => {
    const check = new InputCheck()
      .int(['low'], 0, { min: 0, max: 10 })
      .int(['high'], 10, { min: 0, max: 10 })
      .int(['under'], -1, { min: 0, max: 10 })
      .int(['over'], 11, { min: 0, max: 10 })
      .int(['fraction'], 1.5, { min: 0, max: 10 });
    expect(codes(check)).toEqual(['under:OUT_OF_RANGE', 'over:OUT_OF_RANGE', 'fraction:OUT_OF_RANGE']);
    expect(check.errors[0].message).toBe('Input should be an integer from 0 to 10');
  });

  it('should keep dates between 1970 and the end of 9999, and refuse invalid ones', () => {
    const check = new InputCheck()
      .date(['start'], new Date(Date.UTC(1970, 0, 1)))
      .date(['end'], new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)))
      .date(['before'], new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)))
      .date(['after'], new Date(Date.UTC(10000, 0, 1)))
      .date(['invalid'], new Date('2026-02-30T25:00:00Z'));
    expect(codes(check)).toEqual(['before:OUT_OF_RANGE', 'after:OUT_OF_RANGE', 'invalid:OUT_OF_RANGE']);
  });

  it('should bound list lengths: too many is TOO_MANY, too few REQUIRED', () => {
    const check = new InputCheck()
      .count(['a'], [1, 2, 3], { max: 2 })
      .count(['b'], [], { max: 2, min: 1 })
      .count(['c'], [1, 2], { max: 2, min: 2 })
      .count(['d'], null, { max: 0, min: 1 });
    expect(check.errors).toEqual([
      { field: ['a'], message: 'List should have at most 2 items', code: 'TOO_MANY' },
      { field: ['b'], message: 'List should have at least 1 item', code: 'REQUIRED' },
    ]);
  });

  it('should check every entry of a string map on the path of its key', () => {
    const limits = { maxKeys: 3, maxKey: 5, maxValue: 4 };
    expect(codes(new InputCheck().stringMap(['meta'], ['a'], limits))).toEqual(['meta:INVALID']);
    expect(codes(new InputCheck().stringMap(['meta'], { a: '1', b: '2', c: '3', d: '4' }, limits))).toEqual([
      'meta:TOO_MANY',
    ]);
    const check = new InputCheck().stringMap(
      ['meta'],
      { ok: 'v', num: 1, '': 'empty key', toolongkey: 'v', long: 'value', nul: 'a\u0000' },
      { ...limits, maxKeys: 10 },
    );
    expect(codes(check)).toEqual([
      'meta.num:INVALID',
      'meta.:INVALID',
      'meta.toolongkey:INVALID',
      'meta.long:TOO_LONG',
      'meta.nul:INVALID',
    ]);
  });

  it('should collect every problem, with numeric path segments as strings, and throw them together', () => {
    const check = new InputCheck()
      .text(['items', 0, 'name'], '', { max: 5, min: 1 })
      .email(['recipients', 1, 'email'], 'nope');
    expect(check.ok).toBe(false);
    expect(check.errors.map((e) => e.field)).toEqual([
      ['items', '0', 'name'],
      ['recipients', '1', 'email'],
    ]);
    let thrown: unknown;
    try {
      check.done();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      code: 'VALIDATION',
      userErrors: check.errors,
      message: `${check.errors[0].message}; ${check.errors[1].message}`,
    });
    expect(() => new InputCheck().done()).not.toThrow();
  });
});
