export { ChannelsHub } from './channels-hub.js';
export { registerChannelsRoute } from './channels-route.js';
export { type ChannelCodec, codecFor, jsonCodec, v1Codec } from './codec.js';
export type { FanoutOptions } from './kernel-fanout.js';
export { IopubRateLimiter, type RateLimitOptions } from './rate-limit.js';
export { ReplayBuffer } from './replay-buffer.js';
