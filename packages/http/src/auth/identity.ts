import { randomBytes, randomInt } from 'node:crypto';

/** The `identity` part of `/api/me`, as jupyter_server 2 shapes it. */
export interface Identity {
  username: string;
  name: string;
  display_name: string;
  initials: string | null;
  avatar_url: string | null;
  color: string | null;
}

// jupyter_server names anonymous users after Jupiter's moons.
const MOONS = ['Adrastea', 'Amalthea', 'Callisto', 'Europa', 'Ganymede', 'Himalia', 'Io', 'Leda', 'Metis', 'Thebe'];

/** nbserve is a single-user server: one identity per instance, its color editable through `PATCH /api/me`. */
export function anonymousIdentity(): Identity {
  const moon = MOONS[randomInt(MOONS.length)] ?? 'Io';
  const name = `Anonymous ${moon}`;
  return {
    username: randomBytes(16).toString('hex'),
    name,
    display_name: name,
    initials: `A${moon[0]}`,
    avatar_url: null,
    color: null,
  };
}

/** The identity of a server that knows its user (a JupyterHub user's server). */
export function namedIdentity(name: string): Identity {
  return {
    username: name,
    name,
    display_name: name,
    initials: name.slice(0, 1).toUpperCase() || null,
    avatar_url: null,
    color: null,
  };
}

/** Fields `PATCH /api/me` may change. */
export const UPDATABLE_FIELDS = ['color'] as const;
