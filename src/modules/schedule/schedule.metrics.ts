import { databaseGauge, type MetricsSource } from '../../kernel/metrics/metrics';

/** The timed-work queue every instance shares: jobs waiting, due, and how late the oldest due one is. */
export const scheduleMetrics: MetricsSource = ({ registry, db }) => {
  const queue = async () => {
    const [row] = await db.rows<{ pending: number; due: number; lag: number | null }>(
      `select count(*)::int as pending, (count(*) filter (where due_at <= now()))::int as due,
              extract(epoch from now() - min(due_at) filter (where due_at <= now()))::float8 as lag
         from job where status = 'PENDING'`,
    );
    return row;
  };
  databaseGauge(registry, {
    name: 'gather_jobs',
    help: 'Timed jobs (reminders, expiry, auto-close, escalations) pending, and of those due now',
    labelNames: ['state'],
    read: async () => {
      const { pending, due } = await queue();
      return [
        { labels: { state: 'pending' }, value: pending },
        { labels: { state: 'due' }, value: due },
      ];
    },
  });
  databaseGauge(registry, {
    name: 'gather_jobs_lag_seconds',
    help: 'How long the oldest due timed job has waited (0 when none waits)',
    read: async () => [{ value: (await queue()).lag ?? 0 }],
  });
};
