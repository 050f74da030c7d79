import { QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import '@fontsource-variable/inter'
import './index.css'
import { watchSessionExpiry } from './lib/session-expiry.ts'
import { queryClient } from './lib/query-client.ts'
import { router } from './router.tsx'
import { registerServiceWorker } from './lib/service-worker.ts'

watchSessionExpiry(queryClient, router)
registerServiceWorker()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)
