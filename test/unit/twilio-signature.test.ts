import { twilioSignature } from '../../src/modules/notifications/notification.twilio';

// Twilio's signature of a webhook: HMAC-SHA1, keyed with the auth token, of the full URL followed by every POST
// parameter's name and value, sorted by name; base64. The vector is the example of Twilio's security documentation.

describe('twilioSignature', () => {
  const params = {
    CallSid: 'CA1234567890ABCDE',
    Caller: '+12349013030',
    Digits: '1234',
    From: '+12349013030',
    To: '+18005551212',
  };

  it("should sign as Twilio's documented example does", () => {
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe(
      '0/KCTR6DLpKmkAf8muzZqo1nDgQ=',
    );
  });

  it('should not depend on the order the parameters came in, and change with any of them or the URL', () => {
    const reversed = Object.fromEntries(Object.entries(params).reverse());
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    expect(twilioSignature('12345', url, reversed)).toBe(twilioSignature('12345', url, params));
    expect(twilioSignature('12345', url, { ...params, Digits: '1235' })).not.toBe(
      twilioSignature('12345', url, params),
    );
    expect(twilioSignature('12345', `${url}&x=1`, params)).not.toBe(twilioSignature('12345', url, params));
  });
});
