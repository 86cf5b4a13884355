/** The server's ZeroMQ (ZMTP 3) sockets, also what the built-in kernel binds with: `@nbserve/core/zmtp`. */
export { ZmtpListener, type ZmtpListenerOptions, type ZmtpListenerType } from './zmtp-listener.js';
export { ZmtpSocket, type ZmtpSocketOptions, type ZmtpSocketType } from './zmtp-socket.js';
