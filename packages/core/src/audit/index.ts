export { type AuditEvent, AuditLog, type AuditLogOptions } from './audit-log.js';
