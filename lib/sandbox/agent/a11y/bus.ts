import dbus, { Message, MessageBus, MessageType } from 'dbus-next';
import { encodeMethodCall } from './wire';

/**
 * A connection to the sandbox's accessibility bus, with plain method calls.
 * dbus-next connects and decodes the replies. Its proxy objects fail on the
 * AT-SPI interfaces, and its generic encoder costs more than the
 * applications take to answer, so calls are encoded by hand (wire.ts) and
 * written in batches.
 */

/**
 * A D-Bus error reply. Made without a stack: a walk gets many of them (a
 * text asked of a node that has none) and a stack costs more than the call.
 */
export class CallError extends Error {
  constructor(readonly errorName: string, message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`${errorName}: ${message}`);
    Error.stackTraceLimit = limit;
    this.name = 'CallError';
  }
}

/** An accessible object on the bus: the application's bus name and the object's path, D-Bus type (so). */
export type Ref = [busName: string, objectPath: string];

/** D-Bus addresses Node can open without dbus-next's native add-on, which abstract sockets would need. */
export function nodeReachableAddress(address: string): string {
  return address.split(';').map((entry) => {
    const abstract = /^unix:(?:.*,)?abstract=([^,]+)/.exec(entry);
    return abstract ? `unix:socket=\0${decodeURIComponent(abstract[1])}` : entry;
  }).join(';');
}

function connect(address: string, timeoutMs: number): Promise<MessageBus> {
  const bus = dbus.sessionBus({ busAddress: nodeReachableAddress(address) });
  // A socket error after the connection was handed on must not go unheard: it would end the agent.
  bus.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      bus.disconnect();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`the bus at ${address} did not answer within ${timeoutMs} ms`)), timeoutMs);
    bus.once('error', fail);
    bus.once('connect', () => {
      clearTimeout(timer);
      bus.off('error', fail);
      resolve(bus);
    });
  });
}

function call(bus: MessageBus, destination: string, path: string, iface: string, member: string, signature = '', body: unknown[] = []): Promise<any[]> {
  return bus.call(new Message({ destination, path, interface: iface, member, signature, body })).then((reply) => reply?.body ?? []);
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** The parts of dbus-next's MessageBus that the fast call path uses: replies still arrive through dbus-next. */
interface BusInternals {
  _connection: NodeJS.EventEmitter & { stream: NodeJS.WritableStream & { writable: boolean } };
  _methodReturnHandlers: Record<number, (reply: Message) => void>;
  newSerial(): number;
  name: string | null;
}

export class AccessibilityBus {
  private open = true;
  /** Encoded calls waiting for the next write. */
  private outgoing: Buffer[] = [];
  private readonly internals: BusInternals;

  private constructor(private readonly bus: MessageBus) {
    this.internals = bus as unknown as BusInternals;
    // A closed or broken connection is opened again by the next snapshot.
    bus.on('error', () => { this.open = false; });
    this.internals._connection.on('end', () => { this.open = false; });
  }

  /**
   * Asks the session bus where the accessibility bus is (org.a11y.Bus,
   * served by at-spi-bus-launcher) and connects to it. Null when the sandbox
   * has no session bus or no accessibility bus.
   */
  static async connect(sessionAddress: string | undefined, timeoutMs: number): Promise<AccessibilityBus | null> {
    if (!sessionAddress) return null;
    const deadline = Date.now() + timeoutMs;
    let session: MessageBus | undefined;
    try {
      session = await connect(sessionAddress, timeoutMs);
      const [address] = await withTimeout(call(session, 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress'), Math.max(1, deadline - Date.now()), 'org.a11y.Bus');
      if (typeof address !== 'string' || !address) return null;
      return new AccessibilityBus(await connect(address, Math.max(1, deadline - Date.now())));
    } catch {
      return null;
    } finally {
      session?.disconnect();
    }
  }

  /** This connection's own name on the bus. */
  get uniqueName(): string | null {
    return this.internals.name;
  }

  get connected(): boolean {
    return this.open;
  }

  /**
   * One method call; rejects with the D-Bus error, or when the connection is
   * gone. The message is encoded here and written straight to the socket;
   * dbus-next matches the reply to its serial and decodes it.
   */
  call(destination: string, path: string, iface: string, member: string, signature = '', body: unknown[] = []): Promise<any[]> {
    const { stream } = this.internals._connection;
    if (!this.open || !stream.writable) return Promise.reject(new Error('the accessibility bus connection is closed'));
    const serial = this.internals.newSerial();
    const data = encodeMethodCall(serial, { destination, path, interface: iface, member, signature, body });
    return new Promise((resolve, reject) => {
      this.internals._methodReturnHandlers[serial] = (reply) => {
        if (reply.type === MessageType.ERROR) reject(new CallError(reply.errorName, String(reply.body?.[0] ?? '')));
        else resolve(reply.body);
      };
      // The calls made while one turn of the event loop reads replies leave in one write: a system call each would cost more than the calls.
      this.outgoing.push(data);
      if (this.outgoing.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.outgoing.length === 1 ? this.outgoing[0] : Buffer.concat(this.outgoing);
    this.outgoing = [];
    const { stream } = this.internals._connection;
    if (stream.writable) stream.write(batch);
  }

  /** A property through org.freedesktop.DBus.Properties.Get, unwrapped from its variant. */
  async property(ref: Ref, iface: string, name: string): Promise<any> {
    const [variant] = await this.call(ref[0], ref[1], 'org.freedesktop.DBus.Properties', 'Get', 'ss', [iface, name]);
    return variant.value;
  }

  /** The process behind a bus name, as the bus daemon knows it (the application itself need not answer). */
  async pidOf(busName: string, timeoutMs = 200): Promise<number | null> {
    try {
      const [pid] = await withTimeout(this.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetConnectionUnixProcessID', 's', [busName]), timeoutMs, 'the bus daemon');
      return typeof pid === 'number' ? pid : null;
    } catch {
      return null;
    }
  }

  close(): void {
    this.open = false;
    try { this.bus.disconnect(); } catch { /* already closed */ }
  }
}
