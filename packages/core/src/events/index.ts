export {
  CONTENTS_EVENT_SCHEMA,
  type ContentsAction,
  type ContentsChange,
  type ContentsDetail,
  EventBus,
  type ServerEvent,
} from './event-bus.js';
