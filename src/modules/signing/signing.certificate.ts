import { createHash, generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Signer } from '@signpdf/utils';
import forge from 'node-forge';
import { ConfigError, type SigningSettings } from '../../config/config';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { seal, unseal } from '../../kernel/crypto/seal';

type Ctx = Pick<GraphQLContext, 'db' | 'settings'>;

/** What signs: a PKCS#12 holding the certificate and its private key, and its passphrase. */
export type SigningKey = { p12: Buffer; passphrase: string };

/** The certificate a signature carries, as the audit page names it. */
export type CertificateSummary = { subject: string; sha256: string };

const SEAL_PURPOSE = 'signing-certificate';
const VALIDITY_YEARS = 10;
// RFC 5280's upper bound of a common name and of an organization name.
const MAX_NAME_IN_CERTIFICATE = 64;

// @types/node-forge types an attribute's valueTagClass as an asn1 Class; forge stores the value's Type.
const UTF8_TAG = forge.asn1.Type.UTF8;

const generateRsaKeyPair = promisify(generateKeyPair);

/**
 * A self-signed certificate for an organization: RSA 2048, CN and O its name, valid ten years, for
 * signatures only. The key pair comes from node:crypto (native; forge's pure JS takes seconds).
 */
export async function createSelfSignedKey(
  organizationName: string,
  now: Date,
): Promise<{ certificatePem: string; key: SigningKey }> {
  const pair = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(pair.privateKey);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey);
  // A positive serial of 16 random bytes (the leading byte keeps the DER integer positive).
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = now;
  cert.validity.notAfter = new Date(now);
  cert.validity.notAfter.setUTCFullYear(now.getUTCFullYear() + VALIDITY_YEARS);
  const name = [...organizationName.trim()].slice(0, MAX_NAME_IN_CERTIFICATE).join('') || 'Gather organization';
  // UTF8String rather than forge's default PrintableString, which cannot hold most names.
  const utf8 = UTF8_TAG as unknown as forge.asn1.Class;
  const subject: forge.pki.CertificateField[] = [
    { name: 'commonName', value: name, valueTagClass: utf8 },
    { name: 'organizationName', value: name, valueTagClass: utf8 },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', critical: true, digitalSignature: true, nonRepudiation: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());
  const passphrase = randomBytes(24).toString('base64url');
  const p12 = forge.pkcs12.toPkcs12Asn1(privateKey, [cert], passphrase, { algorithm: 'aes256', friendlyName: name });
  return {
    certificatePem: forge.pki.certificateToPem(cert),
    key: { p12: Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'), passphrase },
  };
}

/**
 * The key that signs for an organization: the configured PKCS#12, else the organization's own,
 * made on its first use. Concurrent first uses each make one, and the first row written wins.
 */
export async function organizationKey(ctx: Ctx, organization: { id: string; name: string }): Promise<SigningKey> {
  if (ctx.settings.signing.p12)
    return { p12: ctx.settings.signing.p12.bytes, passphrase: ctx.settings.signing.p12.passphrase };
  const stored = await readStored(ctx, organization.id);
  if (stored) return stored;
  const { certificatePem, key } = await createSelfSignedKey(organization.name, new Date());
  await ctx.db.transaction((tx) =>
    tx.execute(
      `insert into organization_certificate (organization_id, certificate_pem, sealed_p12, created_at)
       values (?, ?, ?, ?) on conflict (organization_id) do nothing`,
      [
        organization.id,
        certificatePem,
        seal(
          ctx.settings.secret,
          SEAL_PURPOSE,
          JSON.stringify({ p12: key.p12.toString('base64'), passphrase: key.passphrase }),
        ),
        new Date(),
      ],
    ),
  );
  const written = await readStored(ctx, organization.id);
  if (!written) throw new Error(`organization_certificate of ${organization.id} is missing right after its insert`);
  return written;
}

async function readStored(ctx: Ctx, organizationId: string): Promise<SigningKey | null> {
  const [row] = await ctx.db.rows<{ sealed_p12: string }>(
    'select sealed_p12 from organization_certificate where organization_id = ?',
    [organizationId],
  );
  if (!row) return null;
  const { p12, passphrase } = JSON.parse(unseal(ctx.settings.secret, SEAL_PURPOSE, row.sealed_p12)) as {
    p12: string;
    passphrase: string;
  };
  return { p12: Buffer.from(p12, 'base64'), passphrase };
}

/** Opens the configured PKCS#12 at start, so that a wrong file or passphrase stops the start, not a signature. */
export function checkSigningSettings(settings: SigningSettings): void {
  if (!settings.p12) return;
  try {
    openKey({ p12: settings.p12.bytes, passphrase: settings.p12.passphrase });
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
}

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
