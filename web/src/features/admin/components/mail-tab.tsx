import { useQuery } from '@tanstack/react-query'
import { MailIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { errorText } from '~/lib/api.ts'
import { mailQuery, useTestMail } from '../api.ts'
import { Fact, FactCard, Loaded } from './parts.tsx'

/** Mail tab: the settings in use and "Send a test mail to me". */
export function MailTab({ email }: { email: string }) {
  const query = useQuery(mailQuery)
  const test = useTestMail()
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
        </styled.div>
      )}
    </Loaded>
  )
}
