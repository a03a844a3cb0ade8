import { Readable } from 'node:stream';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/errors/app-error';
import type { Viewer } from '../../kernel/graphql/context';
import { bundledAssets, sendPage, serveBundledAssets } from '../../kernel/http/bundle';
import { sendFile } from '../../kernel/http/files';
import { readEditorToken } from '../contracts/contract.editor-link';
import { ContractUpdateBody, contractUpdateInputFromRest } from '../contracts/contract.rest-shapes';
import { requireContract, updateContract } from '../contracts/contract.service';
import { contractView } from '../contracts/contract.view';
import { readFile, requireStoredFile } from '../files/file.service';
// The console's policy, pdf.js's worker from Gather included (a blob: never runs as a worker).
import { CONSOLE_CSP as EDITOR_CSP, CONSOLE_STYLESHEETS } from './console.page';
import { EDITOR_ASSET_PREFIX, renderEditorPage, renderLinkEndedPage } from './editor.page';

// The contract editor at a contract's `annotationUrl` (docs/console.md): its page, and what the page reads and
// saves with the link's token: the contract as `GET /contracts/{id}` answers it, its PDF, and a save that takes
// what `PATCH /contracts/{id}` accepts. The token is the credential (no cookie, so no cross-site question): it
// names the user who read the link, whose rights apply, and this contract alone.

/** The editor's script (React and pdf.js) with pdf.js's worker beside it, apart from the console's budget. */
export const editorAssets = bundledAssets(
  'editor',
  join(__dirname, '../../web/editor/main.tsx'),
  [...CONSOLE_STYLESHEETS, join(__dirname, '../../web/editor/editor.page.css')],
  { 'pdf.worker': require.resolve('pdfjs-dist/build/pdf.worker.min.mjs') },
);

type EditorRoute = { Params: { contract_id: string }; Querystring: { token?: string } };
/** What the link's checks read of a request: the contract in the path, the token in the query. */
type EditorRequest = Pick<FastifyRequest<EditorRoute>, 'params' | 'query' | 'log' | 'id'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const grantOf = (scope: FastifyInstance, { params, query }: EditorRequest) =>
  UUID.test(params.contract_id)
    ? readEditorToken(scope.contexts.settings, params.contract_id, query.token ?? '')
    : 'invalid';

/** The user the request's link stands for, as a viewer of their organization; refuses anything else. */
async function linkViewer(scope: FastifyInstance, request: EditorRequest): Promise<Viewer> {
  const grant = grantOf(scope, request);
  if (grant === 'expired')
    throw new AppError('GONE', 'This editor link has expired: open the contract again for a new one');
  if (grant === 'invalid') throw AppError.notFound('Contract');
  const [user] = await scope.db.rows<{ organization_id: string; team_id: string | null; role: Viewer['role'] }>(
    'select organization_id, team_id, role from app_user where id = ?',
    [grant.userId],
  );
  if (!user) throw AppError.notFound('Contract');
  return {
    userId: grant.userId,
    organizationId: user.organization_id,
    teamId: user.team_id,
    role: user.role,
    apiKeyId: '',
    actor: { type: 'USER', id: grant.userId },
  };
}

export async function editorRoutes(scope: FastifyInstance): Promise<void> {
  const open = { config: { public: true } };
  const context = async (request: EditorRequest) =>
    scope.contexts.forViewer(await linkViewer(scope, request), { log: request.log, requestId: request.id });
  const view = async (request: EditorRequest) =>
    (await contractView(scope.db, scope.contexts.settings, request.params.contract_id))!;

  scope.get<EditorRoute>('/contracts/:contract_id/edit', open, async (request, reply) => {
    const id = request.params.contract_id;
    // Opened without a link (an event's annotationUrl, a bookmark): the console makes one with its session.
    if (!request.query.token) return reply.redirect(`/app/contracts/${encodeURIComponent(id)}/edit`);
    const grant = grantOf(scope, request);
    if (grant !== 'expired' && grant !== 'invalid')
      return sendPage(reply, EDITOR_CSP, renderEditorPage(await editorAssets()));
    reply.code(grant === 'expired' ? 410 : 404);
    return sendPage(reply, EDITOR_CSP, renderLinkEndedPage(await editorAssets(), id, grant));
  });
  scope.get<EditorRoute>('/contracts/:contract_id/edit/contract', open, async (request) => {
    await requireContract(await context(request), request.params.contract_id);
    return view(request);
  });
  scope.patch<EditorRoute & { Body: (typeof ContractUpdateBody)['static'] }>(
    '/contracts/:contract_id/edit/contract',
    { ...open, schema: { body: ContractUpdateBody } },
    async (request) => {
      await updateContract(
        await context(request),
        request.params.contract_id,
        contractUpdateInputFromRest(request.body),
      );
      return view(request);
    },
  );
  scope.get<EditorRoute>('/contracts/:contract_id/edit/file', open, async (request, reply) => {
    const ctx = await context(request);
    const contract = await requireContract(ctx, request.params.contract_id);
    const file = await requireStoredFile(ctx.db, contract.file.id);
    if (file.mimeType !== 'application/pdf')
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Only a PDF's fields are placed in the editor; this is ${file.mimeType}`,
      );
    const bytes = await readFile(ctx, file);
    return sendFile(reply, {
      stream: Readable.from([bytes]),
      name: file.name,
      size: bytes.length,
      type: file.mimeType,
      inline: true,
    });
  });
  serveBundledAssets(scope, EDITOR_ASSET_PREFIX, editorAssets);
}
