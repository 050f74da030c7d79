import { useQuery } from '@tanstack/react-query'
import { styled } from 'styled-system/jsx'
import { notify } from '~/components/ui/toaster.tsx'
import { schedulesQuery, useRunSchedule } from '../api.ts'
import { ActionsCell, actionFailed, Badge, Loaded, Table, TableScroller, when } from './parts.tsx'

/** Schedules tab: each recurring job with its interval, last run, outcome and next run; run now. */
export function SchedulesTab() {
  const query = useQuery(schedulesQuery)
  const run = useRunSchedule()
  return (
    <Loaded query={query}>
      {({ schedules }) => (
        <TableScroller label="Schedules">
          <Table>
            <styled.caption srOnly>Schedules</styled.caption>
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">Interval</th>
                <th scope="col">Last run</th>
                <th scope="col">Outcome</th>
                <th scope="col">Next run</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {schedules.map((s) => (
                <tr key={s.name}>
                  <td>{s.name}</td>
                  <td>
                    <styled.code>{s.every}</styled.code>
                  </td>
                  <td>{s.lastRunAt ? when(s.lastRunAt) : 'Never'}</td>
                  <td>
                    {s.lastOutcome === 'completed' && <Badge tone="ok">Completed</Badge>}
                    {s.lastOutcome === 'failed' && (
                      <>
                        <Badge tone="bad">Failed</Badge> {s.lastError}
                      </>
                    )}
                    {!s.lastOutcome && '–'}
                  </td>
                  <td>{s.nextRunAt ? when(s.nextRunAt) : 'Not scheduled'}</td>
                  <ActionsCell
                    actions={[
                      {
                        label: 'Run now',
                        name: `Run now: ${s.name}`,
                        loading: run.isPending && run.variables === s.name,
                        onClick: () => run.mutate(s.name, { onSuccess: () => notify.success(`${s.name} queued`), onError: actionFailed }),
                      },
                    ]}
                  />
                </tr>
              ))}
            </tbody>
          </Table>
        </TableScroller>
      )}
    </Loaded>
  )
}
