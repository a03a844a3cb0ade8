import { useState } from 'react';
import { graphql } from '../../../generated/console';
import type { UserRole } from '../../../generated/console/graphql';
import { personName } from '../../shared/labels';
import { accepted, ApiError, gql, type UserError } from '../api';
import { text } from '../forms';
import { useAction, useQuery, useTitle } from '../hooks';
import { Alert, confirmed, CopyButton, Form, formatDate, Loading, Notice, Page, SelectField, TextField } from '../ui';
import { useSession } from '../session';

// Users, teams and API keys (ADMIN): the organization's users with their role and team (changed in
// place), a new user, a new team, and API keys for integrations: made for a user with the secret shown
// once, revoked by the one who made them (the schema lists no keys: a key made elsewhere is revoked
// where it was made, or with apiKeyRevoke and its id).

const UsersDocument = graphql(`
  query ConsoleUsers($after: String) {
    organization {
      id
      users(first: 100, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          id
          email
          firstName
          lastName
          role
          createdAt
          team {
            id
          }
        }
      }
      teams {
        id
        name
        members {
          id
        }
      }
    }
  }
`);

const UserCreateDocument = graphql(`
  mutation ConsoleUserCreate($input: UserCreateInput!) {
    userCreate(input: $input) {
      user {
        id
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const UserUpdateDocument = graphql(`
  mutation ConsoleUserUpdate($id: ID!, $input: UserUpdateInput!) {
    userUpdate(id: $id, input: $input) {
      user {
        id
        role
        team {
          id
        }
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const TeamCreateDocument = graphql(`
  mutation ConsoleTeamCreate($input: TeamCreateInput!) {
    teamCreate(input: $input) {
      team {
        id
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const ApiKeyCreateDocument = graphql(`
  mutation ConsoleApiKeyCreate($input: ApiKeyCreateInput!) {
    apiKeyCreate(input: $input) {
      apiKey {
        id
        prefix
        name
        createdAt
        user {
          email
        }
      }
      secret
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const ApiKeyRevokeDocument = graphql(`
  mutation ConsoleApiKeyRevoke($id: ID!) {
    apiKeyRevoke(id: $id) {
      apiKey {
        id
        revokedAt
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const ROLES: ReadonlyArray<{ value: UserRole; label: string }> = [
  { value: 'USER', label: 'User' },
  { value: 'ADMIN', label: 'Admin' },
];

/** A key made on this page: its secret is shown until the page is left. */
type MadeKey = {
  id: string;
  prefix: string;
  name: string | null;
  email: string;
  secret: string | null;
  revoked: boolean;
};

async function withErrors(
  write: () => Promise<{ userErrors: readonly UserError[] }>,
  setErrors: (errors: readonly UserError[]) => void,
): Promise<boolean> {
  setErrors([]);
  try {
    const payload = await write();
    setErrors(payload.userErrors);
    return payload.userErrors.length === 0;
  } catch (err) {
    if (err instanceof ApiError && err.userErrors.length) {
      setErrors(err.userErrors);
      return false;
    }
    throw err;
  }
}

export function UsersScreen() {
  useTitle('Users');
  const session = useSession();
  const [version, setVersion] = useState(0);
  const loaded = useQuery(UsersDocument, { after: null }, version);
  const [said, setSaid] = useState<string | null>(null);
  const action = useAction();
  const [newUser, setNewUser] = useState({ email: '', firstName: '', lastName: '', role: 'USER', teamId: '' });
  const [userErrors, setUserErrors] = useState<readonly UserError[]>([]);
  const [teamName, setTeamName] = useState('');
  const [teamErrors, setTeamErrors] = useState<readonly UserError[]>([]);
  const [keyFor, setKeyFor] = useState(session.viewer.id);
  const [keyName, setKeyName] = useState('');
  const [keyErrors, setKeyErrors] = useState<readonly UserError[]>([]);
  const [keys, setKeys] = useState<MadeKey[]>([]);
  const organization = loaded.data?.organization;
  const teams = organization?.teams ?? [];
  const users = organization?.users.nodes ?? [];
  const done = (what: string) => {
    setSaid(what);
    setVersion((v) => v + 1);
  };
  const change = (id: string, input: { role?: UserRole; teamId?: string | null }, what: string) =>
    void action.run(async () => {
      accepted((await gql(UserUpdateDocument, { id, input })).userUpdate);
      done(what);
    });
  const teamOptions = [{ value: '', label: 'No team' }, ...teams.map((t) => ({ value: t.id, label: t.name }))];

  return (
    <Page title="Users">
      <Alert>{loaded.error?.message ?? action.error}</Alert>
      <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
      {!organization ? (
        <Loading />
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Users of the organization</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Team</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr key={user.id} data-user={user.id}>
                  <td data-label="User">
                    <div>
                      {personName(user, user.email)}
                      <div className="muted wrap">{user.email}</div>
                    </div>
                  </td>
                  <td data-label="Role">
                    <label className="visually-hidden" htmlFor={`role-${user.id}`}>
                      Role of {user.email}
                    </label>
                    <select
                      id={`role-${user.id}`}
                      value={user.role}
                      disabled={action.busy || user.id === session.viewer.id}
                      title={user.id === session.viewer.id ? 'You cannot change your own role here' : undefined}
                      onChange={(event) =>
                        change(
                          user.id,
                          { role: event.target.value as UserRole },
                          `${user.email} is now ${event.target.value}`,
                        )
                      }
                    >
                      {ROLES.map((role) => (
                        <option key={role.value} value={role.value}>
                          {role.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Team">
                    <label className="visually-hidden" htmlFor={`team-${user.id}`}>
                      Team of {user.email}
                    </label>
                    <select
                      id={`team-${user.id}`}
                      value={user.team?.id ?? ''}
                      disabled={action.busy}
                      onChange={(event) =>
                        change(user.id, { teamId: event.target.value || null }, `${user.email}'s team changed`)
                      }
                    >
                      {teamOptions.map((option) => (
                        <option key={option.value} value={option.value}>
                          {option.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Since">{formatDate(user.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <div className="grid-2">
        <Form
          errors={userErrors}
          scope="user"
          label="New user"
          onSubmit={() =>
            void action.run(async () => {
              const ok = await withErrors(
                async () =>
                  (
                    await gql(UserCreateDocument, {
                      input: {
                        email: newUser.email.trim(),
                        firstName: text(newUser.firstName),
                        lastName: text(newUser.lastName),
                        role: newUser.role as UserRole,
                        teamId: newUser.teamId || undefined,
                      },
                    })
                  ).userCreate,
                setUserErrors,
              );
              if (ok) {
                done(`${newUser.email.trim()} added`);
                setNewUser({ email: '', firstName: '', lastName: '', role: 'USER', teamId: '' });
              }
            })
          }
        >
          <section className="card" aria-labelledby="new-user-title">
            <h2 id="new-user-title">New user</h2>
            <p className="muted">They sign in with a link mailed to this address.</p>
            <TextField
              label="Email"
              name="input.email"
              type="email"
              value={newUser.email}
              onValue={(email) => setNewUser({ ...newUser, email })}
              required
            />
            <TextField
              label="First name"
              name="input.firstName"
              value={newUser.firstName}
              onValue={(firstName) => setNewUser({ ...newUser, firstName })}
            />
            <TextField
              label="Last name"
              name="input.lastName"
              value={newUser.lastName}
              onValue={(lastName) => setNewUser({ ...newUser, lastName })}
            />
            <SelectField
              label="Role"
              name="input.role"
              value={newUser.role}
              onValue={(role) => setNewUser({ ...newUser, role })}
              options={ROLES}
            />
            <SelectField
              label="Team"
              name="input.teamId"
              value={newUser.teamId}
              onValue={(teamId) => setNewUser({ ...newUser, teamId })}
              options={teamOptions}
            />
            <button type="submit" disabled={action.busy}>
              Add user
            </button>
          </section>
        </Form>

        <div>
          <Form
            errors={teamErrors}
            scope="team"
            label="New team"
            onSubmit={() =>
              void action.run(async () => {
                const ok = await withErrors(
                  async () => (await gql(TeamCreateDocument, { input: { name: teamName.trim() } })).teamCreate,
                  setTeamErrors,
                );
                if (ok) {
                  done(`Team ${teamName.trim()} made`);
                  setTeamName('');
                }
              })
            }
          >
            <section className="card" aria-labelledby="teams-title">
              <h2 id="teams-title">Teams</h2>
              {teams.length > 0 ? (
                <ul className="plain-list">
                  {teams.map((team) => (
                    <li key={team.id}>
                      {team.name}{' '}
                      <span className="muted">
                        · {team.members.length} {team.members.length === 1 ? 'member' : 'members'}
                      </span>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="muted">No teams yet.</p>
              )}
              <TextField label="New team's name" name="input.name" value={teamName} onValue={setTeamName} required />
              <button type="submit" disabled={action.busy}>
                Make team
              </button>
            </section>
          </Form>

          <Form
            errors={keyErrors}
            scope="key"
            label="New API key"
            onSubmit={() =>
              void action.run(async () => {
                setKeyErrors([]);
                const made = (await gql(ApiKeyCreateDocument, { input: { userId: keyFor, name: text(keyName) } }))
                  .apiKeyCreate;
                if (made.userErrors.length) return setKeyErrors(made.userErrors);
                if (made.apiKey)
                  setKeys([
                    {
                      id: made.apiKey.id,
                      prefix: made.apiKey.prefix,
                      name: made.apiKey.name,
                      email: made.apiKey.user.email,
                      secret: made.secret,
                      revoked: false,
                    },
                    ...keys.map((key) => ({ ...key, secret: null })),
                  ]);
                setKeyName('');
              })
            }
          >
            <section className="card" aria-labelledby="keys-title">
              <h2 id="keys-title">API keys</h2>
              <p className="muted">For integrations (scripts, your servers): a key acts as its user.</p>
              <SelectField
                label="For"
                name="input.userId"
                value={keyFor}
                onValue={setKeyFor}
                options={users.map((user) => ({ value: user.id, label: personName(user, user.email) }))}
              />
              <TextField
                label="Name (what it is for)"
                name="input.name"
                value={keyName}
                onValue={setKeyName}
                placeholder="CRM sync"
              />
              <button type="submit" disabled={action.busy}>
                Make key
              </button>
              {keys.length > 0 && (
                <ul className="plain-list made-keys">
                  {keys.map((key) => (
                    <li key={key.id} data-key={key.id}>
                      <strong>{key.name ?? 'Key'}</strong> <span className="muted">for {key.email}</span>{' '}
                      <code>{key.prefix}…</code> {key.revoked && <span className="field-error">revoked</span>}
                      {key.secret && (
                        <div>
                          <p>Its secret, shown only now: store it where your integration reads it.</p>
                          <p className="secret">{key.secret}</p>
                          <CopyButton value={key.secret} label="Copy the key" />
                        </div>
                      )}
                      {!key.revoked && (
                        <button
                          type="button"
                          className="danger"
                          disabled={action.busy}
                          onClick={() =>
                            confirmed('Revoke this key? Calls made with it are refused from now on.') &&
                            void action.run(async () => {
                              accepted((await gql(ApiKeyRevokeDocument, { id: key.id })).apiKeyRevoke);
                              setKeys(keys.map((k) => (k.id === key.id ? { ...k, revoked: true, secret: null } : k)));
                            })
                          }
                        >
                          Revoke<span className="visually-hidden"> {key.name ?? key.prefix}</span>
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </Form>
        </div>
      </div>
    </Page>
  );
}
