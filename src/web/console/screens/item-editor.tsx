import { useAction } from '../hooks';
import { rest } from '../api';
import { Alert, CheckboxField, FieldNote, SelectField, TextField } from '../ui';
import type { ItemDraft, ItemKind } from './request-form';

// An item being written, in a new request or a template: its kind's fields, its order, its removal.

export const KINDS: ReadonlyArray<{ kind: ItemKind; label: string }> = [
  { kind: 'UPLOAD', label: 'Upload' },
  { kind: 'QUESTION', label: 'Question' },
  { kind: 'E_SIGNATURE', label: 'E-signature' },
  { kind: 'FORM', label: 'Form' },
];

/** A contract's file, uploaded over REST as soon as it is chosen. */
export function ContractUpload({ onUploaded, label }: { onUploaded: (id: string) => void; label: string }) {
  const action = useAction();
  return (
    <div className="field">
      <label>
        {label}
        <input
          type="file"
          accept=".pdf,.doc,.docx,application/pdf"
          disabled={action.busy}
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (!file) return;
            void action.run(async () => {
              // Bytes go over REST (the schema has no Upload scalar); the contract is then chosen by id.
              const contract = await rest<{ id: string }>(
                'POST',
                `/contracts?name=${encodeURIComponent(file.name)}`,
                file,
                'application/octet-stream',
              );
              onUploaded(contract.id);
            });
          }}
        />
      </label>
      {action.busy && <span className="hint">Uploading…</span>}
      <Alert>{action.error}</Alert>
    </div>
  );
}

export function ItemEditor({
  item,
  index,
  count,
  choices,
  onChange,
  onMove,
  onRemove,
  onContractUploaded,
}: {
  item: ItemDraft;
  index: number;
  count: number;
  /** The contracts to choose from; none for a template's items (a request's item names its contract). */
  choices: { contracts?: { id: string; name: string }[]; forms: { id: string; name: string }[] };
  onChange: (item: ItemDraft) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  onContractUploaded?: () => void;
}) {
  const path = `input.items.${index}`;
  const set = (changes: Partial<ItemDraft>) => onChange({ ...item, ...changes });
  const kindLabel = KINDS.find((k) => k.kind === item.kind)?.label ?? item.kind;
  return (
    <li className="editor-entry" data-kind={item.kind}>
      <div className="item-head">
        <h3>
          {index + 1}. {kindLabel}
        </h3>
        <div className="actions">
          <button type="button" className="secondary" disabled={index === 0} onClick={() => onMove(-1)}>
            Up<span className="visually-hidden"> (item {index + 1})</span>
          </button>
          <button type="button" className="secondary" disabled={index === count - 1} onClick={() => onMove(1)}>
            Down<span className="visually-hidden"> (item {index + 1})</span>
          </button>
          <button type="button" className="danger" onClick={onRemove}>
            Remove<span className="visually-hidden"> item {index + 1}</span>
          </button>
        </div>
      </div>
      <FieldNote name={path} />
      <div className="grid-2">
        <TextField
          label={item.kind === 'QUESTION' ? 'Question' : 'Name'}
          name={`${path}.name`}
          value={item.name}
          onValue={(name) => set({ name })}
          maxLength={255}
          required
        />
        <TextField
          label="Description (optional)"
          name={`${path}.description`}
          value={item.description}
          onValue={(description) => set({ description })}
        />
      </div>
      {item.kind === 'E_SIGNATURE' && choices.contracts && (
        <div className="grid-2">
          <SelectField
            label="Contract to sign"
            name={`${path}.contractId`}
            value={item.contractId}
            onValue={(contractId) => set({ contractId })}
            options={[
              { value: '', label: 'Choose a contract' },
              ...(choices.contracts ?? []).map((c) => ({ value: c.id, label: c.name })),
            ]}
          />
          <ContractUpload
            label="Or upload one (PDF, DOC, DOCX)"
            onUploaded={(contractId) => {
              set({ contractId });
              onContractUploaded?.();
            }}
          />
        </div>
      )}
      {item.kind === 'FORM' && (
        <div className="grid-2">
          <SelectField
            label="Form to fill in"
            name={`${path}.form.id`}
            value={item.formId}
            onValue={(formId) => set({ formId })}
            options={[
              { value: '', label: choices.forms.length ? 'Choose a form' : 'No form yet (made with formCreate)' },
              ...choices.forms.map((f) => ({ value: f.id, label: f.name })),
            ]}
          />
          <CheckboxField
            label="Files may be uploaded with the form"
            name={`${path}.form.allowFileUpload`}
            checked={item.allowFileUpload}
            onChecked={(allowFileUpload) => set({ allowFileUpload })}
          />
        </div>
      )}
      <CheckboxField
        label="Required"
        name={`${path}.required`}
        checked={item.required}
        onChecked={(required) => set({ required })}
      />
    </li>
  );
}
