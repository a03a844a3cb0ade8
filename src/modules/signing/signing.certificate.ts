import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { ConfigError, type SigningSettings } from '../../config/config';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { seal, unseal } from '../../kernel/crypto/seal';
import { openKey, UTF8_TAG, type SigningKey } from './signing.key';

type Ctx = Pick<GraphQLContext, 'db' | 'settings'>;

const SEAL_PURPOSE = 'signing-certificate';
const VALIDITY_YEARS = 10;
// RFC 5280's upper bound of a common name and of an organization name.
const MAX_NAME_IN_CERTIFICATE = 64;

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
