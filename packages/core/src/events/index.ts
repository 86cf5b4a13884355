export { CONTENTS_EVENT_SCHEMA, type ContentsAction, EventBus, type ServerEvent } from './event-bus.js';
