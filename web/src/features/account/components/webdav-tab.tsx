import { useQuery } from '@tanstack/react-query'
import { Alert } from '~/components/ui/alert.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { PageSpinner } from '~/components/ui/spinner.tsx'
import { errorText, isStatus } from '~/lib/api.ts'
import { webdavQuery } from '../api.ts'
import { WebdavForm } from './webdav-form.tsx'

/** Loads the saved WebDAV account, then shows the form starting from it (or empty, also when its password no longer decrypts). */
export function WebdavTab() {
  const webdav = useQuery(webdavQuery)
  return (
    <CardRoot>
      <CardBody pt="6">
        {webdav.isPending ? (
          <PageSpinner label="Loading WebDAV account" />
        ) : webdav.isError && isStatus(webdav.error, 409) ? (
          // the saved password no longer decrypts: say so, and offer the form to enter it again
          <>
            <Alert status="error">{errorText(webdav.error)}</Alert>
            <WebdavForm saved={null} />
          </>
        ) : webdav.isError ? (
          <Alert status="error">{errorText(webdav.error)}</Alert>
        ) : (
          <WebdavForm saved={webdav.data} />
        )}
      </CardBody>
    </CardRoot>
  )
}
