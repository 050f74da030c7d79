import { useQuery } from '@tanstack/react-query'
import { styled } from 'styled-system/jsx'
import { notify } from '~/components/ui/toaster.tsx'
import { jobsQuery, useDeleteJob, useRetryJob } from '../api.ts'
import { ActionsCell, actionFailed, Badge, Loaded, Table, TableScroller, when } from './parts.tsx'
import { kindWords } from '../job-kind.ts'

/** Jobs tab: counts by state, the failed jobs with their reasons and owners, retry or delete. */
export function JobsTab() {
  const query = useQuery(jobsQuery)
  const retry = useRetryJob()
  const remove = useDeleteJob()
  return (
    <Loaded query={query}>
      {({ counts, failed }) => (
        <styled.div display="flex" flexDirection="column" gap="4">
          <styled.p textStyle="sm">
            <Badge>{counts.waiting} waiting</Badge>
            <Badge tone="info">{counts.active} active</Badge>
            <Badge tone={counts.failed ? 'bad' : undefined}>{counts.failed} failed</Badge>
          </styled.p>
          {failed.length === 0 ? (
            <styled.p color="fg.muted">No failed jobs.</styled.p>
          ) : (
            <TableScroller label="Failed jobs">
              <Table>
                <styled.caption srOnly>Failed jobs</styled.caption>
                <thead>
                  <tr>
                    <th scope="col">Job</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Owner</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {failed.map((job) => (
                    <tr key={job.id}>
                      <td data-label="Job">{job.title ?? kindWords(job.name)}</td>
                      <td data-label="Kind">
                        <styled.code textStyle="xs">{job.name}</styled.code>
                      </td>
                      <td data-label="Owner">{job.owner?.email ?? '–'}</td>
                      <td data-label="Failed">{when(job.failedAt)}</td>
                      <td data-label="Reason">{job.error}</td>
                      <ActionsCell
                        actions={[
                          {
                            label: 'Retry',
                            name: `Retry ${job.title ?? kindWords(job.name)} of ${when(job.failedAt)}`,
                            loading: retry.isPending && retry.variables === job.id,
                            onClick: () => retry.mutate(job.id, { onError: actionFailed, onSuccess: () => notify.success('Job queued again', `${job.title ?? kindWords(job.name)} runs again; it leaves this list.`) }),
                          },
                          {
                            label: 'Delete',
                            name: `Delete ${job.title ?? kindWords(job.name)} of ${when(job.failedAt)}`,
                            danger: true,
                            loading: remove.isPending && remove.variables === job.id,
                            onClick: () => remove.mutate(job.id, { onError: actionFailed }),
                          },
                        ]}
                      />
                    </tr>
                  ))}
                </tbody>
              </Table>
            </TableScroller>
          )}
        </styled.div>
      )}
    </Loaded>
  )
}
