import { NOTIFICATION_KINDS, type NotificationKind } from '../../src/modules/notifications/notification.entities';
import { LANGUAGES } from '../../src/modules/requests/request.enums';
import { MAX_SUBJECT_LENGTH } from '../../src/modules/notifications/notification.limits';
import {
  MASKED,
  maskSecrets,
  renderNotification,
  type TemplateParams,
  type TemplateSecrets,
} from '../../src/modules/notifications/notification.templates';

const HOSTILE = `<img src=x onerror="alert('x')"> & co`;
const LINK = 'https://gather.test/r/abc_DEF-123';

/** One message of each kind, every interpolated value hostile. */
const SAMPLES: {
  [K in NotificationKind]: { params: TemplateParams[K]; secrets: TemplateSecrets[K]; link: string | null };
} = {
  INVITATION: {
    params: {
      requestName: HOSTILE,
      senderName: HOSTILE,
      organizationName: HOSTILE,
      recipientFirstName: HOSTILE,
      personalMessage: `${HOSTILE}\nline two`,
      dueDate: '2026-12-15T17:00:00+00:00',
    },
    secrets: {},
    link: LINK,
  },
  ONE_TIME_CODE: { params: { requestName: HOSTILE, validMinutes: 10 }, secrets: { code: '123456' }, link: null },
  CHANGES_REQUESTED: {
    params: {
      requestName: HOSTILE,
      senderName: HOSTILE,
      recipientFirstName: HOSTILE,
      message: HOSTILE,
      itemNames: [HOSTILE, 'W-2'],
    },
    secrets: {},
    link: LINK,
  },
  REQUEST_SUBMITTED: {
    params: { requestName: HOSTILE, recipientName: HOSTILE, requestId: '6d1f0c1e-0000-4000-8000-000000000000' },
    secrets: {},
    link: null,
  },
  REQUEST_COMPLETED: {
    params: { requestName: HOSTILE, recipientName: HOSTILE, requestId: '6d1f0c1e-0000-4000-8000-000000000000' },
    secrets: {},
    link: null,
  },
  REMINDER: {
    params: {
      requestName: HOSTILE,
      senderName: HOSTILE,
      recipientFirstName: HOSTILE,
      message: HOSTILE,
      dueDate: '2026-12-15T17:00:00+00:00',
    },
    secrets: {},
    link: LINK,
  },
  EXPIRATION_WARNING: {
    params: {
      requestName: HOSTILE,
      senderName: HOSTILE,
      recipientFirstName: HOSTILE,
      expiresAt: '2026-12-20T00:00:00+00:00',
    },
    secrets: {},
    link: LINK,
  },
  ESCALATION: {
    params: {
      requestName: HOSTILE,
      requestId: '6d1f0c1e-0000-4000-8000-000000000000',
      condition: 'OVERDUE',
      afterDays: 2,
      dueDate: null,
      recipientNames: [HOSTILE],
    },
    secrets: {},
    link: null,
  },
  SHARE_INVITATION: {
    params: {
      shareTitle: HOSTILE,
      senderName: HOSTILE,
      organizationName: HOSTILE,
      recipientFirstName: HOSTILE,
      message: HOSTILE,
      fileCount: 2,
      expiresAt: '2026-12-20T00:00:00+00:00',
    },
    secrets: { link: LINK },
    link: null,
  },
  SIGN_IN_LINK: { params: { firstName: HOSTILE, validMinutes: 15 }, secrets: { link: LINK }, link: null },
};

describe('notification templates', () => {
  describe.each(NOTIFICATION_KINDS.map((kind) => [kind]))('%s', (kind) => {
    const render = (language: string) => renderNotification(kind, language, SAMPLES[kind] as never);

    it.each(LANGUAGES.filter((language) => language !== 'en-US').map((language) => [language]))(
      'should render a subject, text, HTML and SMS in %s, different from English',
      (language) => {
        const [en, other] = [render('en-US'), render(language)];
        expect(other.subject.length).toBeGreaterThan(0);
        expect(other.text).toContain(HOSTILE);
        expect(other.sms.length).toBeGreaterThan(0);
        expect(other.subject).not.toBe(en.subject);
        expect(other.text).not.toBe(en.text);
        expect(other.html).toContain(
          `<html lang="${language}" dir="${['ar', 'he'].includes(language) ? 'rtl' : 'ltr'}">`,
        );
      },
    );

    it('should take a language by its alias or base tag, and fall back to English for one it lacks', () => {
      expect(render('en')).toEqual(render('en-US'));
      expect(render('fr-CA')).toEqual(render('fr'));
      expect(render('ja')).toEqual(render('en-US'));
    });

    it('should escape every interpolated value in HTML', () => {
      const { html } = render('en-US');
      expect(html).not.toContain('<img');
      expect(html).not.toContain('"alert');
      expect(html).toContain('&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; co');
    });

    it("should carry the link when the kind has one (a share's as a secret)", () => {
      const { text, html, sms } = render('en-US');
      if (SAMPLES[kind].link || 'link' in SAMPLES[kind].secrets) {
        expect(text).toContain(LINK);
        expect(html).toContain(`href="${LINK}"`);
        expect(sms).toContain(LINK);
      } else {
        expect(text).not.toContain('https://');
      }
    });
  });

  it('should refuse a kind with a link when no link is given', () => {
    expect(() => renderNotification('INVITATION', 'en-US', { ...SAMPLES.INVITATION, link: null })).toThrow(/link/);
  });

  it('should show a one-time code where it is sent and mask it where it is stored', () => {
    const sent = renderNotification('ONE_TIME_CODE', 'es', SAMPLES.ONE_TIME_CODE);
    const stored = renderNotification('ONE_TIME_CODE', 'es', {
      ...SAMPLES.ONE_TIME_CODE,
      secrets: maskSecrets(SAMPLES.ONE_TIME_CODE.secrets),
    });
    expect(sent.text).toContain('123456');
    expect(sent.sms).toContain('123456');
    expect(JSON.stringify(stored)).not.toContain('123456');
    expect(stored.text).toContain(MASKED);
  });

  it("should show a share's link where it is sent and mask it where it is stored", () => {
    const stored = renderNotification('SHARE_INVITATION', 'en-US', {
      ...SAMPLES.SHARE_INVITATION,
      secrets: maskSecrets(SAMPLES.SHARE_INVITATION.secrets),
    });
    expect(JSON.stringify(stored)).not.toContain(LINK);
    expect(stored.text).toContain(MASKED);
  });

  it('should cut a long subject to the limit', () => {
    const { subject } = renderNotification('REQUEST_SUBMITTED', 'en-US', {
      ...SAMPLES.REQUEST_SUBMITTED,
      params: { ...SAMPLES.REQUEST_SUBMITTED.params, requestName: 'x'.repeat(500) },
    });
    expect(subject).toHaveLength(MAX_SUBJECT_LENGTH);
    expect(subject.endsWith('…')).toBe(true);
  });
});
