/**
 * The session store of `@fastify/session`, on PostgreSQL (`store/web-sessions.ts`): sessions survive
 * restarts, are shared by every API process, and signing out deletes the row, so a copied cookie is
 * dead too. Only the SHA-256 of a session id is stored. A session lives until the instant its cookie
 * expires (absolute lifetime, `JOBLEDGER_SESSION_HOURS`); an expired row is never read.
 */
import { createHash } from 'node:crypto';
import type { Session } from 'fastify';
import '@fastify/session';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';
import { deleteWebSession, readWebSession, writeWebSession } from '../store/web-sessions.ts';

declare module 'fastify' {
  interface Session {
    /** The signed-in account. */
    accountId?: string;
  }
}

type Callback = (error?: unknown) => void;

function idHash(sessionId: string): Buffer {
  return createHash('sha256').update(sessionId, 'utf8').digest();
}

/** A `@fastify/session` store over `db`; `lifetimeSeconds` bounds a session without a cookie expiry. */
export function postgresSessionStore(db: Kysely<DB>, lifetimeSeconds: number) {
  return {
    set(sessionId: string, session: Session, callback: Callback) {
      const expires = session.cookie?.expires ? new Date(session.cookie.expires) : new Date(Date.now() + lifetimeSeconds * 1000);
      const accountId = session.accountId ?? null;
      writeWebSession(db, { idHash: idHash(sessionId), accountId, data: session, expiresAt: expires }).then(() => callback(), callback);
    },
    get(sessionId: string, callback: (error: unknown, session?: Session | null) => void) {
      readWebSession(db, idHash(sessionId), new Date()).then((data) => {
        if (!data) return callback(null, null);
        const session = data as Session;
        // JSON has no Date: the cookie's expiry comes back as a string.
        if (session.cookie?.expires) session.cookie.expires = new Date(session.cookie.expires);
        callback(null, session);
      }, callback);
    },
    destroy(sessionId: string, callback: Callback) {
      deleteWebSession(db, idHash(sessionId)).then(() => callback(), callback);
    },
  };
}
