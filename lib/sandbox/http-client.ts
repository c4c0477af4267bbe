import http from 'http';
import https from 'https';
import { GlanceError } from '../config/errors';

/** Where an HTTP service listens, the path its routes sit under, and the bearer token it requires. */
export interface HttpTarget {
  host: string;
  port: number;
  token: string;
  /** A prefix of every path (a sandbox's agent behind the team server: `/v1/sandboxes/ID/agent`). */
  basePath?: string;
  /** HTTPS; `ca` is a PEM certificate to trust beside the system's (a self-signed server). */
  secure?: boolean;
  ca?: string;
}

export interface RequestExtras {
  token?: string;
  headers?: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  data: Buffer;
}

/**
 * A connection failure, with what it means for the request: `sent` is false
 * when the request cannot have reached the server (so it was not carried
 * out), true when the connection dropped after it was sent (so it may have
 * been).
 */
export class ConnectionError extends GlanceError {
  /** `retryable`: false when trying again cannot help (the server's certificate is not trusted). */
  constructor(message: string, readonly sent: boolean, readonly retryable = true) {
    super('GLANCE_CONNECTION', message);
  }
}

/** TLS failures: the certificate is refused, so the request never went out, and trying again changes nothing. */
const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

/** Connection errors that happen before a request is written: the server never saw it. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Requests to one HTTP service over a keep-alive pool, so that a hot path
 * (a screenshot, a click, a cached find) costs a loopback round trip.
 */
export class HttpClient {
  private readonly pool: http.Agent;

  constructor(readonly target: HttpTarget, maxSockets = 4) {
    this.pool = target.secure
      ? new https.Agent({ keepAlive: true, maxSockets, ...(target.ca ? { ca: target.ca } : {}) })
      : new http.Agent({ keepAlive: true, maxSockets });
  }

  get address(): string {
    return `${this.target.host}:${this.target.port}`;
  }

  /**
   * Sends a request; a JSON body is serialised, a Buffer sent as it is.
   * `extra` sends another bearer token than the target's, and more headers.
   * Rejects with a ConnectionError when no answer came.
   */
  async send(method: string, path: string, body: unknown, timeoutMs: number, signal?: AbortSignal, extra: RequestExtras = {}): Promise<HttpAnswer> {
    try {
      return await this.sendOnce(method, path, body, timeoutMs, signal, extra);
    } catch (error) {
      // A kept-alive connection the server closed while idle fails before the server reads the request:
      // sent again on a new connection, the call is made once, as meant.
      if (!(error as { staleConnection?: boolean }).staleConnection) throw this.explain(method, path, error as NodeJS.ErrnoException);
      try {
        return await this.sendOnce(method, path, body, timeoutMs, signal, extra);
      } catch (again) {
        throw this.explain(method, path, again as NodeJS.ErrnoException);
      }
    }
  }

  private explain(method: string, path: string, error: NodeJS.ErrnoException): Error {
    if (error.name === 'AbortError') return error;
    if (error.code && CERTIFICATE.test(error.code)) {
      return new ConnectionError(`${method} ${path} to ${this.address} failed: ${error.message} (${error.code}). The request was not sent. Trust the server's certificate authority with NODE_EXTRA_CA_CERTS=/path/ca.pem.`, false, false);
    }
    const sent = !(error.code && NOT_SENT.has(error.code));
    const what = sent
      ? 'the connection dropped after the request was sent, so it may have been carried out'
      : 'the request was not sent, so it was not carried out';
    return new ConnectionError(`${method} ${path} to ${this.address} failed (${error.message}): ${what}.`, sent);
  }

  private sendOnce(method: string, path: string, body: unknown, timeoutMs: number, signal: AbortSignal | undefined, extra: RequestExtras): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const contentType = Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json';
    const transport = this.target.secure ? https : http;
    return new Promise((resolve, reject) => {
      let gotResponse = false;
      const req = transport.request({
        host: this.target.host,
        port: this.target.port,
        method,
        path: `${this.target.basePath ?? ''}${path}`,
        agent: this.pool,
        signal,
        headers: {
          authorization: `Bearer ${extra.token ?? this.target.token}`,
          ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
          ...extra.headers,
        },
      }, (res) => {
        gotResponse = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      req.on('error', (error: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && error.code === 'ECONNRESET' && !gotResponse;
        reject(stale ? Object.assign(error, { staleConnection: true }) : error);
      });
      req.end(payload);
    });
  }

  close(): void {
    this.pool.destroy();
  }
}
