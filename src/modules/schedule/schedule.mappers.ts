// What the resolvers of these GraphQL types receive (codegen's mappers: `<GraphQLTypeName>Mapper`).
import type {
  EscalationRow,
  ReminderMessage,
  ReminderRecipient,
  ReminderRow,
  ScheduledReminderRow,
} from './schedule.entities';

export type ReminderMapper = ReminderRow;
export type ReminderRecipientMapper = ReminderRecipient;
export type ReminderMessageMapper = ReminderMessage;
export type ScheduledReminderMapper = ScheduledReminderRow;
export type EscalationMapper = EscalationRow;
