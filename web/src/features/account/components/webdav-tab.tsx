import { useQuery } from '@tanstack/react-query'
import { Alert } from '~/components/ui/alert.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { PageSpinner } from '~/components/ui/spinner.tsx'
import { errorText } from '~/lib/api.ts'
import { webdavQuery } from '../api.ts'
import { WebdavForm } from './webdav-form.tsx'

/** Loads the saved WebDAV account, then shows the form starting from it (or empty). */
export function WebdavTab() {
  const webdav = useQuery(webdavQuery)
  return (
    <CardRoot>
      <CardBody pt="6">
        {webdav.isPending ? (
          <PageSpinner label="Loading WebDAV account" />
        ) : webdav.isError ? (
          <Alert status="error">{errorText(webdav.error)}</Alert>
        ) : (
          <WebdavForm saved={webdav.data} />
        )}
      </CardBody>
    </CardRoot>
  )
}
