export { AwarenessRoom, GLOBAL_AWARENESS_ROOM } from './awareness-room.js';
export { CellExecutor, type ExecutionRequest, type ExecutionStatus } from './cell-executor.js';
export { COLLABORATION_DEFAULTS, CollaborationManager, type CollaborationOptions } from './manager.js';
export { CLOSE as ROOM_CLOSE_CODES } from './protocol.js';
export { Room, type RoomClient, type RoomLimits } from './room.js';
export { type DocumentKind, SharedDocument } from './shared-document.js';
