export {
  type CreateSessionInput,
  type KernelRequest,
  SessionManager,
  type SessionModel,
  type UpdateSessionInput,
} from './manager.js';
export { pathFromNotebookField } from './notebook-body.js';
export { MemorySessionStore, type SessionRecord, type SessionStore } from './store.js';
