import type { ContributedJobKind } from '../schedule/schedule.jobs';

// A share's timed work (planned by share.service.ts when its dates are set): its expiration closes
// its page (410), its deletion deletes its files from storage. Each locks the share and acts only if
// its date has come (a date moved since the job was claimed is planned anew).

export const shareJobs: ContributedJobKind = {
  kinds: ['SHARE_EXPIRE', 'SHARE_DELETE'],
  run: async (job, { tx, now }) => {
    const [share] = await tx.rows<{
      id: string;
      status: string;
      expiration_date: Date | null;
      deletion_date: Date | null;
    }>('select id, status, expiration_date, deletion_date from share where id = ? for update', [job.payload.shareId]);
    if (!share || share.status === 'DELETED') return {};
    if (job.kind === 'SHARE_EXPIRE') {
      if (share.status === 'EXPIRED' || !share.expiration_date || share.expiration_date > now) return {};
      await tx.execute(`update share set status = 'EXPIRED', updated_at = ? where id = ?`, [now, share.id]);
      return {};
    }
    if (!share.deletion_date || share.deletion_date > now) return {};
    const files = await tx.rows<{ file_id: string }>('delete from share_file where share_id = ? returning file_id', [
      share.id,
    ]);
    await tx.execute(`update share set status = 'DELETED', files_deleted_at = ?, updated_at = ? where id = ?`, [
      now,
      now,
      share.id,
    ]);
    return { fileIds: files.map((file) => file.file_id) };
  },
};
