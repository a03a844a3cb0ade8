import { createHash } from 'node:crypto';
import { Signer } from '@signpdf/utils';
import forge from 'node-forge';

// A signing key opened for use, without the database: the PDF worker opens it (signing.pdf-tasks.ts).

/** What signs: a PKCS#12 holding the certificate and its private key, and its passphrase. */
export type SigningKey = { p12: Buffer; passphrase: string };

/** The certificate a signature carries, as the audit page names it. */
export type CertificateSummary = { subject: string; sha256: string };

// @types/node-forge types an attribute's valueTagClass as an asn1 Class; forge stores the value's Type.
export const UTF8_TAG = forge.asn1.Type.UTF8;

/** A key ready to sign: what the audit page says of its certificate, and the signer @signpdf calls. */
export type OpenedKey = { certificate: CertificateSummary; signer: Signer; chainBytes: number };

/**
 * Opens a PKCS#12 once, failing with a clear message (a wrong passphrase, no key, no certificate of
 * that key) before any PDF is prepared.
 */
export function openKey(key: SigningKey): OpenedKey {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(
      forge.asn1.fromDer(forge.util.createBuffer(key.p12.toString('binary'))),
      false,
      key.passphrase,
    );
  } catch (cause) {
    throw new Error(
      'The signing PKCS#12 (SIGNING_P12_PATH) cannot be opened: not a PKCS#12 file, or a wrong SIGNING_P12_PASSPHRASE',
      { cause },
    );
  }
  const keyBags =
    p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? [];
  const privateKey = keyBags[0]?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!privateKey) throw new Error('The signing PKCS#12 (SIGNING_P12_PATH) holds no encrypted private key');
  const certs = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? []).flatMap((bag) =>
    bag.cert ? [bag.cert] : [],
  );
  const cert = certs.find((c) => {
    const publicKey = c.publicKey as forge.pki.rsa.PublicKey;
    return publicKey.n.compareTo(privateKey.n) === 0 && publicKey.e.compareTo(privateKey.e) === 0;
  });
  if (!cert) throw new Error('The signing PKCS#12 (SIGNING_P12_PATH) holds no certificate of its private key');
  const derOf = (c: forge.pki.Certificate) =>
    Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(c)).getBytes(), 'binary');
  const der = derOf(cert);
  return {
    certificate: {
      subject: cert.subject.attributes.map((a) => `${a.shortName ?? a.name}=${textOf(a)}`).join(', '),
      sha256: createHash('sha256').update(der).digest('hex'),
    },
    signer: new CertificateSigner(privateKey, cert, certs),
    chainBytes: certs.reduce((sum, c) => sum + derOf(c).length, 0),
  };
}

/** An attribute's value as text: forge keeps a parsed UTF8String as the bytes it read. */
function textOf(attribute: forge.pki.CertificateField): string {
  const value = String(attribute.value ?? '');
  return (attribute.valueTagClass as unknown) === UTF8_TAG ? forge.util.decodeUtf8(value) : value;
}

/**
 * The PKCS#7 detached signature @signpdf/signer-p12 makes (SHA-256, content type, signing time and
 * message digest signed), but naming the certificate's issuer correctly: forge re-encodes a parsed
 * UTF8String issuer as UTF-8 a second time, so with a name such as "Compañía" the signer-p12 version
 * names an issuer no certificate has, and validators (pdfsig, OpenSSL) find no signer certificate.
 */
class CertificateSigner extends Signer {
  constructor(
    private readonly privateKey: forge.pki.rsa.PrivateKey,
    private readonly certificate: forge.pki.Certificate,
    private readonly chain: forge.pki.Certificate[],
  ) {
    super();
  }

  override async sign(pdf: Buffer, signingTime?: Date): Promise<Buffer> {
    const p7 = forge.pkcs7.createSignedData();
    p7.content = forge.util.createBuffer(pdf.toString('binary'));
    for (const cert of this.chain) p7.addCertificate(cert);
    const issuer = this.certificate.issuer.attributes.map((a) => ({ ...a, value: textOf(a) }));
    p7.addSigner({
      key: this.privateKey,
      // addSigner reads only these two of a certificate.
      certificate: {
        issuer: { attributes: issuer },
        serialNumber: this.certificate.serialNumber,
      } as unknown as forge.pki.Certificate,
      digestAlgorithm: forge.pki.oids.sha256,
      authenticatedAttributes: [
        { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
        { type: forge.pki.oids.signingTime, value: (signingTime ?? new Date()) as unknown as string },
        { type: forge.pki.oids.messageDigest },
      ],
    });
    p7.sign({ detached: true });
    return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
  }
}
