// The logic lives in core: the server writes stream outputs into shared documents the same way.
export { appendStreamText, applyCarriageReturns } from '@nbserve/core/stream-text';
