// waybill-client/store in Vue: the store's snapshot as a shallow ref, kept in step while the
// component that made it is mounted. (React's hooks hold the same store, with
// useSyncExternalStore.)

import { onScopeDispose, shallowRef, type ShallowRef } from 'vue'
import type { UploadSnapshot, UploadStore } from 'waybill-client/store'

export function useUploadStore(store: UploadStore): Readonly<ShallowRef<UploadSnapshot>> {
  const snapshot = shallowRef(store.getSnapshot())
  onScopeDispose(store.subscribe(() => (snapshot.value = store.getSnapshot())))
  return snapshot
}
