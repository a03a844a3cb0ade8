import { useEffect, useState } from 'react';
import { graphql } from '../../../generated/console';
import { personName } from '../../shared/labels';
import { accepted, gql, localPath } from '../api';
import { useAction, useQuery, useTitle } from '../hooks';
import { Alert, confirmed, DeleteButton, formatDate, Loading, NextPageButton, Notice, Page } from '../ui';
import { fileSize } from '../forms';
import { ContractUpload } from './item-editor';

// Contracts: upload one, list them with their fields and annotations counted, open a PDF's editor (its
// annotationUrl, a link signed for this owner), preview it with its boxes drawn, delete it.

const ContractsDocument = graphql(`
  query ConsoleContracts($after: String) {
    contracts(first: 50, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        id
        name
        mimeType
        size
        annotationUrl
        previewUrl
        updatedAt
        owner {
          email
          firstName
          lastName
        }
        fields {
          type
        }
        annotations {
          type
        }
      }
    }
  }
`);

const EditorLinkDocument = graphql(`
  query ConsoleContractEditorLink($id: ID!) {
    contract(id: $id) {
      id
      mimeType
      annotationUrl
    }
  }
`);

const DeleteDocument = graphql(`
  mutation ConsoleContractDelete($id: ID!) {
    contractDelete(id: $id) {
      deletedContractId
      userErrors {
        field
        message
        code
      }
    }
  }
`);

export function ContractsScreen() {
  useTitle('Contracts');
  const [after, setAfter] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const list = useQuery(ContractsDocument, { after }, version);
  const action = useAction();
  const [said, setSaid] = useState<string | null>(null);
  const page = list.data?.contracts;
  const remove = (id: string, name: string) =>
    confirmed(`Delete the contract “${name}”? Items of closed requests keep their signed PDFs.`) &&
    void action.run(async () => {
      accepted((await gql(DeleteDocument, { id })).contractDelete);
      setSaid(`“${name}” deleted`);
      setVersion((v) => v + 1);
    });
  return (
    <Page title="Contracts">
      <p className="muted">
        Documents to e-sign. Upload a PDF, then place its fields (where each signer signs, initials, ticks or writes)
        and annotations (values you fill in) in the editor.
      </p>
      <ContractUpload
        label="Upload a contract (PDF, DOC or DOCX)"
        onUploaded={() => {
          setSaid('Contract uploaded');
          setVersion((v) => v + 1);
        }}
      />
      <Alert>{list.error?.message ?? action.error}</Alert>
      <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
      {!page ? (
        <Loading />
      ) : page.nodes.length === 0 ? (
        <p className="empty">No contracts yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Contracts</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Fields</th>
                <th scope="col">Owner</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.nodes.map((contract) => (
                <tr key={contract.id} data-contract={contract.id}>
                  <td data-label="Name">
                    <div>
                      {contract.name}
                      <div className="muted">{fileSize(contract.size)}</div>
                    </div>
                  </td>
                  <td data-label="Fields">
                    {contract.fields.length} field(s), {contract.annotations.length} annotation(s)
                  </td>
                  <td data-label="Owner">{personName(contract.owner, contract.owner.email)}</td>
                  <td data-label="Updated">{formatDate(contract.updatedAt)}</td>
                  <td data-label="Actions">
                    <div className="actions">
                      {contract.mimeType === 'application/pdf' && (
                        <a className="button" href={localPath(contract.annotationUrl)}>
                          Edit fields<span className="visually-hidden"> of {contract.name}</span>
                        </a>
                      )}
                      {contract.previewUrl && (
                        <a
                          className="button secondary"
                          href={localPath(contract.previewUrl)}
                          target="_blank"
                          rel="noopener"
                        >
                          Preview<span className="visually-hidden"> {contract.name}</span>
                        </a>
                      )}
                      <DeleteButton
                        name={contract.name}
                        busy={action.busy}
                        onClick={() => remove(contract.id, contract.name)}
                      />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <NextPageButton pageInfo={page?.pageInfo} onNext={setAfter} />
    </Page>
  );
}

/**
 * `/app/contracts/{id}/edit`: a fresh editor link for this owner, opened at once. An expired link and an
 * annotationUrl read without a reader (an event's) come here, through sign-in when there is no session.
 */
export function ContractEditorRedirect({ id }: { id: string }) {
  useTitle('Contract editor');
  const link = useQuery(EditorLinkDocument, { id });
  const contract = link.data?.contract;
  useEffect(() => {
    if (contract && contract.mimeType === 'application/pdf') location.replace(localPath(contract.annotationUrl));
  }, [contract]);
  return (
    <Page title="Contract editor">
      {link.error ? (
        <Alert>{link.error.message}</Alert>
      ) : link.data && !contract ? (
        <Alert>No contract of your organization has this address.</Alert>
      ) : contract && contract.mimeType !== 'application/pdf' ? (
        <Alert>Only a PDF's fields are placed in the editor; this contract is {contract.mimeType}.</Alert>
      ) : (
        <Loading what="Opening the editor" />
      )}
    </Page>
  );
}
