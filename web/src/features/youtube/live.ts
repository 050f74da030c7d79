import { onChannelMessage, onChannelOpen, useChannelSocket } from '~/lib/channel-socket.ts'
import { applyChannelMessage, catchUp, type ChannelMessage } from './channel-message.ts'

// channel refreshes, from the shared channel socket (~/lib/channel-socket.ts)
onChannelMessage((queryClient, message) => applyChannelMessage(queryClient, message as ChannelMessage))
onChannelOpen(catchUp)

/** Listens to channel refreshes while the calling component is mounted. */
export function useChannelListen() {
  useChannelSocket(true)
}
