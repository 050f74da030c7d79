import { useQuery } from '@tanstack/react-query'
import { MailIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { errorText } from '~/lib/api.ts'
import { notify } from '~/components/ui/toaster.tsx'
import { mailQuery, useDeleteJob, useRetryJob, useTestMail } from '../api.ts'
import { ActionsCell, actionFailed, Fact, FactCard, Loaded, Table, TableScroller, when } from './parts.tsx'

/** Mail tab: the settings in use, "Send a test mail to me", and the mails waiting for SMTP or given up. */
export function MailTab({ email }: { email: string }) {
  const query = useQuery(mailQuery)
  const test = useTestMail()
  const retry = useRetryJob()
  const remove = useDeleteJob()
  return (
    <Loaded query={query}>
      {(mail) => (
        <styled.div display="flex" flexDirection="column" gap="4" maxW="2xl">
          <FactCard title="Mail settings in use">
            {mail.transport === 'smtp' ? (
              <>
                <Fact label="SMTP server">
                  {mail.host}:{mail.port} {mail.secure ? '(TLS)' : ''}
                </Fact>
                <Fact label="Sign-in">{mail.username ?? 'None'}</Fact>
              </>
            ) : (
              <Fact label="Delivery">No SMTP server (SMTP_URL unset): mails are saved in {mail.folder}</Fact>
            )}
            <Fact label="From">{mail.from}</Fact>
          </FactCard>
          {test.isSuccess && <Alert status="success">Test mail sent to {email}.</Alert>}
          {test.isError && <Alert status="error">{errorText(test.error)}</Alert>}
          <styled.div>
            <Button loading={test.isPending} onClick={() => test.mutate()}>
              <MailIcon />
              Send a test mail to me
            </Button>
          </styled.div>
          <styled.h2 textStyle="lg" fontWeight="semibold">
            Outgoing mail
          </styled.h2>
          {mail.outbox.waiting.length === 0 && mail.outbox.failed.length === 0 && (
            <styled.p color="fg.muted">No mail waiting or failed: every mail was sent.</styled.p>
          )}
          {mail.outbox.waiting.length > 0 && (
            <TableScroller label="Mails waiting to be sent">
              <Table>
                <styled.caption textAlign="start">Waiting to be sent (tried again until sent, for up to a day)</styled.caption>
                <thead>
                  <tr>
                    <th scope="col">To</th>
                    <th scope="col">Subject</th>
                    <th scope="col">Queued</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last error</th>
                    <th scope="col">Next attempt</th>
                  </tr>
                </thead>
                <tbody>
                  {mail.outbox.waiting.map((m) => (
                    <tr key={m.id}>
                      <td>{m.to}</td>
                      <td>{m.subject}</td>
                      <td>{when(m.queuedAt)}</td>
                      <td>{m.attempts}</td>
                      <td>{m.lastError ?? '–'}</td>
                      <td>{when(m.nextAttemptAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </TableScroller>
          )}
          {mail.outbox.failed.length > 0 && (
            <TableScroller label="Mails that could not be sent">
              <Table>
                <styled.caption textAlign="start">Could not be sent</styled.caption>
                <thead>
                  <tr>
                    <th scope="col">To</th>
                    <th scope="col">Subject</th>
                    <th scope="col">Given up</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {mail.outbox.failed.map((m) => (
                    <tr key={m.id}>
                      <td>{m.to}</td>
                      <td>{m.subject}</td>
                      <td>{when(m.failedAt)}</td>
                      <td>{m.error}</td>
                      <ActionsCell
                        actions={[
                          {
                            label: 'Send again',
                            name: `Send the mail to ${m.to} again`,
                            loading: retry.isPending && retry.variables === m.id,
                            onClick: () => retry.mutate(m.id, { onError: actionFailed, onSuccess: () => notify.success('Mail queued again') }),
                          },
                          {
                            label: 'Delete',
                            name: `Delete the mail to ${m.to}`,
                            danger: true,
                            loading: remove.isPending && remove.variables === m.id,
                            onClick: () => remove.mutate(m.id, { onError: actionFailed }),
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
