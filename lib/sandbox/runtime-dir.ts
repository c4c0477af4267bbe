import os from 'os';
import path from 'path';

/**
 * A local sandbox's private XDG_RUNTIME_DIR, where its session and
 * accessibility buses listen. In the system's temp folder rather than the
 * state folder, because a socket's path must stay short.
 */
export function sandboxRuntimeDir(id: string): string {
  return path.join(os.tmpdir(), `glance-${id}`);
}
