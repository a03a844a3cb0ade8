import { CATALOGS } from '../../src/i18n/i18n';
import type { Language } from '../../src/modules/requests/request.enums';
import {
  escapeHtml,
  html,
  renderItem,
  renderRequest,
  renderSignIn,
  type ViewContext,
} from '../../src/modules/portal/portal.view';
import { portalItem, portalRequest, signInInfo } from '../support/portal-fixtures';

const ctx = (language: Language = 'en-US'): ViewContext => ({
  token: 'tok',
  texts: CATALOGS[language].portal,
  language,
  maxUploadBytes: 256 * 1024 * 1024,
});

describe('portal view', () => {
  it('should escape every value put into a template, but templates nested in it', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${['<', html`<br>`]}${null}${undefined}${false}${0}</p>`.value).toBe(
      '<p><b>&lt;i&gt;</b>&lt;<br>0</p>',
    );
  });

  it('should show what the owner wrote as text, never as markup', () => {
    const page = renderRequest(
      ctx(),
      portalRequest({
        name: '<script>x</script>',
        personal_message: '<img src=x onerror=alert(1)>',
        items: [portalItem({ name: '"><svg onload=1>' })],
      }),
    ).value;
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('<svg');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('should ask for the steps sign-in lists, in the request language', () => {
    const both = renderSignIn(ctx('es'), signInInfo(['question', 'code'])).value;
    expect(both).toContain('Pregunta de seguridad: City of birth?');
    expect(both).toContain('Enviamos un código de 6 dígitos a a***@example.com.');
    expect(both).toContain('data-action="send-code"');
    const question = renderSignIn(ctx(), signInInfo(['question'])).value;
    expect(question).toContain('id="signin-answer"');
    expect(question).not.toContain('id="signin-code"');
  });

  it('should put the focus on the code at the verify link', () => {
    expect(renderSignIn(ctx(), signInInfo(['question', 'code']), { focus: 'code' }).value).toMatch(
      /id="signin-code"[^>]*autofocus/,
    );
  });

  it('should count done items, not-applicable ones included, in the progress', () => {
    const items = [
      portalItem({ id: 'a', status: 'COMPLETE' }),
      portalItem({ id: 'b', required: false, is_na: true }),
      portalItem({ id: 'c' }),
    ];
    const page = renderRequest(ctx(), portalRequest({ items })).value;
    expect(page).toContain('<progress max="3" value="2"');
    expect(page).toContain('2 of 3 done');
  });

  it('should offer each item kind its own controls while the request is open', () => {
    const upload = renderItem(ctx(), portalItem(), true).value;
    expect(upload).toMatch(/<input[^>]*type="file"[^>]*multiple/);
    expect(upload).toContain('aria-live="polite"');
    const question = renderItem(
      ctx(),
      portalItem({ id: 'q', type: 'QUESTION', name: 'Start date?', answer: 'May' }),
      true,
    ).value;
    expect(question).toContain('<label for="answer-q">Your answer to “Start date?”</label>');
    expect(question).toContain('>May</textarea>');
    const signature = renderItem(
      ctx(),
      portalItem({
        id: 's',
        type: 'E_SIGNATURE',
        signature_fields: [
          { id: 'f1', type: 'text', placeholder: 'Job title', layout: null },
          { id: 'f2', type: 'signature', placeholder: null, layout: null },
          { id: 'f3', type: 'radio', placeholder: 'Paper <copy>', layout: { page: 2 } },
        ],
      }),
      true,
    ).value;
    expect(signature).toContain('href="/r/tok/api/items/s/contract"');
    expect(signature).toContain('Job title');
    expect(signature).not.toContain('data-field="f2"');
    expect(signature).toContain('<input type="radio" id="field-s-f3" name="field-s-f3" data-field="f3">');
    expect(signature).toContain('<canvas class="pad"');
    // The list stays (no script, no pdf.js); the signing script puts the same inputs on the pages, from the
    // fields and their layouts given escaped in an attribute.
    expect(signature).toContain('<fieldset class="sign-fields"><legend>Fill in</legend>');
    const holder = /<div class="sign-pages" data-item="s" data-fields="([^"]*)" hidden><\/div>/.exec(signature);
    expect(holder).not.toBeNull();
    expect(holder![1]).not.toMatch(/[<>]/);
    const unescaped = holder![1]
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
    expect(JSON.parse(unescaped)).toEqual([
      { id: 'f1', type: 'text', placeholder: 'Job title', layout: null },
      { id: 'f2', type: 'signature', placeholder: null, layout: null },
      { id: 'f3', type: 'radio', placeholder: 'Paper <copy>', layout: { page: 2 } },
    ]);
    const optional = renderItem(ctx(), portalItem({ id: 'o', required: false }), true).value;
    expect(optional).toContain('data-action="not-applicable"');
    expect(renderItem(ctx(), portalItem({ id: 'r' }), true).value).not.toContain('data-action="not-applicable"');
  });

  it('should draw a signed item’s signed copy, where its boxes show what was signed', () => {
    const copy = {
      id: 'd9',
      file_name: 'Agreement.signed.pdf',
      content_type: 'application/pdf',
      size: 4096,
      download_url: '/r/tok/api/documents/d9',
      mine: false,
      created_at: '2026-11-24T10:00:00Z',
    };
    const signed = renderItem(
      ctx(),
      portalItem({ id: 's', type: 'E_SIGNATURE', documents: [copy], status: 'COMPLETE' }),
      true,
    ).value;
    expect(signed).toContain(
      '<div class="sign-pages" data-item="s" data-src="/r/tok/api/documents/d9" data-fields="[]" hidden></div>',
    );
    expect(signed).not.toContain('<form class="sign-form"');
    const unsigned = renderItem(ctx(), portalItem({ id: 's', type: 'E_SIGNATURE' }), false).value;
    expect(unsigned).not.toContain('data-src');
  });

  it('should let the recipient remove only its own documents, and nothing once submitted', () => {
    const documents = [
      {
        id: 'd1',
        file_name: 'mine.pdf',
        content_type: 'application/pdf',
        size: 2048,
        download_url: '/r/tok/api/documents/d1',
        mine: true,
        created_at: '2026-11-24T10:00:00Z',
      },
      {
        id: 'd2',
        file_name: 'other.pdf',
        content_type: 'application/pdf',
        size: 10,
        download_url: '/r/tok/api/documents/d2',
        mine: false,
        created_at: '2026-11-24T10:00:00Z',
      },
    ];
    const open = renderItem(ctx(), portalItem({ documents, status: 'COMPLETE' }), true).value;
    expect(open).toContain('data-document="d1"');
    expect(open).not.toContain('data-document="d2"');
    expect(open).toContain('2 kB');
    const closed = renderItem(ctx(), portalItem({ documents, status: 'COMPLETE' }), false).value;
    expect(closed).not.toContain('data-action');
  });

  it('should show what was sent after a submission, and no form', () => {
    const page = renderRequest(
      ctx(),
      portalRequest({
        state: 'SUBMITTED',
        can_change: false,
        items: [portalItem({ type: 'QUESTION', name: 'Start date?', answer: 'May 2', status: 'COMPLETE' })],
        submissions: [{ created_at: '2026-11-24T10:00:00Z', outcome: 'COMPLETE', comment: 'All there' }],
      }),
    ).value;
    expect(page).toContain('You sent this on November 24, 2026');
    expect(page).toContain('<strong>Start date?</strong>: May 2');
    expect(page).toContain('All there');
    expect(page).not.toContain('id="submit-form"');
  });

  it('should name the items to redo and the owner message after a rejection', () => {
    const page = renderRequest(
      ctx(),
      portalRequest({
        state: 'REJECTED',
        rejection: { message: 'The scan is blurry', item_ids: ['a'], rejected_at: '2026-11-24T10:00:00Z' },
        items: [
          portalItem({ id: 'a', name: 'Passport', status: 'REJECTED' }),
          portalItem({ id: 'b', name: 'Visa', status: 'COMPLETE' }),
        ],
      }),
    ).value;
    expect(page).toContain('Olga Ops asks you to redo some items');
    expect(page).toContain('<blockquote>The scan is blurry</blockquote>');
    expect(page).toContain('To redo: Passport</p>');
    expect(page).toContain('id="submit-form"');
  });
});
