import { useQuery } from '@tanstack/react-query'
import { SearchIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { TextField } from '~/components/ui/field.tsx'
import { Pagination } from '~/components/ui/pagination.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { useDebouncedValue } from '~/hooks/use-debounced-value.ts'
import { usePatchUser, usersQuery } from '../api.ts'
import { KeepQuotaCell } from './keep-quota-cell.tsx'
import { DeleteUserDialog } from './delete-user-dialog.tsx'
import { ActionsCell, actionFailed, Badge, Loaded, Table, TableScroller, when } from './parts.tsx'

/** Users tab: search, grant/revoke admin, disable/enable, delete (confirm dialog naming the e-mail). */
export function UsersTab() {
  const [search, setSearch] = useState('')
  const [q] = useDebouncedValue(search.trim(), 300)
  const [page, setPage] = useState(1)
  const query = useQuery(usersQuery(page, q))
  const patch = usePatchUser()
  const [deleting, setDeleting] = useState<{ id: string; email: string } | null>(null)
  const change = (id: string, json: { admin?: boolean; disabled?: boolean }, done: string) =>
    patch.mutate({ id, ...json }, { onSuccess: () => notify.success(done), onError: actionFailed })
  return (
    <styled.div display="flex" flexDirection="column" gap="4">
      <styled.div maxW="sm" position="relative">
        <TextField
          label="Search users"
          type="search"
          placeholder="Part of an e-mail"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value)
            setPage(1)
          }}
        />
        <SearchIcon aria-hidden style={{ position: 'absolute', right: 12, bottom: 12, width: 16, height: 16, opacity: 0.6 }} />
      </styled.div>
      <Loaded query={query}>
        {({ users, totalPages }) =>
          users.length === 0 ? (
            <styled.p color="fg.muted">No users found.</styled.p>
          ) : (
            <>
              <TableScroller label="Users">
                <Table>
                  <styled.caption srOnly>Users</styled.caption>
                  <thead>
                    <tr>
                      <th scope="col">E-mail</th>
                      <th scope="col">Status</th>
                      <th scope="col">Jobs</th>
                      <th scope="col">Subscriptions</th>
                      <th scope="col">Kept videos</th>
                      <th scope="col">Last seen</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {users.map((u) => (
                      <tr key={u.id}>
                        <th scope="row" style={{ fontWeight: 500, color: 'inherit', borderBottomWidth: 1 }}>
                          {u.email}
                        </th>
                        <td data-label="Status">
                          {u.admin && <Badge tone="info">Admin</Badge>}
                          {u.disabled && <Badge tone="bad">Disabled</Badge>}
                          {!u.verified && <Badge>Unverified</Badge>}
                          {!u.admin && !u.disabled && u.verified && <Badge tone="ok">Active</Badge>}
                        </td>
                        <td data-label="Jobs">{u.jobCount}</td>
                        <td data-label="Subscriptions">{u.subscriptionCount}</td>
                        <td data-label="Kept videos">
                          <KeepQuotaCell user={u} />
                        </td>
                        <td data-label="Last seen">{when(u.lastSeenAt)}</td>
                        <ActionsCell
                          wrap
                          actions={[
                            {
                              label: u.admin ? 'Revoke admin' : 'Grant admin',
                              name: `${u.admin ? 'Revoke admin from' : 'Grant admin to'} ${u.email}`,
                              onClick: () => change(u.id, { admin: !u.admin }, u.admin ? `${u.email} is no longer an admin` : `${u.email} is now an admin`),
                            },
                            {
                              label: u.disabled ? 'Enable' : 'Disable',
                              name: `${u.disabled ? 'Enable' : 'Disable'} ${u.email}`,
                              onClick: () => change(u.id, { disabled: !u.disabled }, `${u.email} is ${u.disabled ? 'enabled' : 'disabled'}`),
                            },
                            { label: 'Delete', name: `Delete ${u.email}`, danger: true, onClick: () => setDeleting({ id: u.id, email: u.email }) },
                          ]}
                        />
                      </tr>
                    ))}
                  </tbody>
                </Table>
              </TableScroller>
              <Pagination page={page} totalPages={totalPages} onPageChange={setPage} />
            </>
          )
        }
      </Loaded>
      <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} />
    </styled.div>
  )
}
