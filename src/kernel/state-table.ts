import { AppError } from './errors/app-error';

/**
 * One trigger of a state table. `from: null` marks a trigger that creates the record, which has no
 * state before it. `to` is a function where the target depends on the state left or on the context.
 */
export type Move<S extends string, C> =
  { from: null; to: S } | { from: readonly S[]; to: S | ((from: S, context: C) => S) };

export type StateTable<S extends string, T extends string, C> = {
  /** How refusals name the record's state: `request state`, `item status`. */
  kind: string;
  moves: Record<T, Move<S, C>>;
};

/** Whether `trigger` may fire from `state` (null: before the record exists). */
function allows<S extends string, T extends string, C>(
  table: StateTable<S, T, C>,
  state: S | null,
  trigger: T,
): boolean {
  const { from } = table.moves[trigger];
  return state === null || from === null ? state === from : from.includes(state);
}

/** The state `trigger` leads to from `state`, or an `invalid_state` refusal when the table does not allow it. */
export function nextState<S extends string, T extends string, C>(
  table: StateTable<S, T, C>,
  state: S | null,
  trigger: T,
  context: C,
): S {
  const move = table.moves[trigger];
  if (!allows(table, state, trigger)) {
    throw AppError.invalidState(
      state === null ? `${trigger} needs an existing record` : `${trigger} is not allowed from ${table.kind} ${state}`,
    );
  }
  return typeof move.to === 'function' ? move.to(state!, context) : move.to;
}
