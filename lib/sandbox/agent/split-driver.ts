import type { Driver } from './driver';

/**
 * A driver whose screen and input come from one driver and whose windows
 * (the list, focus, stacking, closing) and screen-change reports come from
 * another. On X11 the nut-js driver takes its windows from the X server
 * itself: libnut sees only a window manager's frames there, and ends its
 * process on any X error, such as focusing a window as it unmaps.
 */
export function splitDriver(screenAndInput: Driver, windows: Driver): Driver {
  return {
    width: screenAndInput.width,
    height: screenAndInput.height,
    changes: windows.changes,
    capture: () => screenAndInput.capture(),
    captureToFile: (path) => screenAndInput.captureToFile(path),
    moveTo: (x, y) => screenAndInput.moveTo(x, y),
    pointer: () => screenAndInput.pointer(),
    button: (button, pressed) => screenAndInput.button(button, pressed),
    wheel: (direction, clicks) => screenAndInput.wheel(direction, clicks),
    chord: (keys) => screenAndInput.chord(keys),
    typeText: (text, delayMs) => screenAndInput.typeText(text, delayMs),
    windows: () => windows.windows(),
    activate: (id) => windows.activate(id),
    activeWindow: () => windows.activeWindow(),
    isActive: (id) => windows.isActive(id),
    closeWindow: (id) => windows.closeWindow(id),
    focusedWindow: () => windows.focusedWindow(),
    hasFocus: (id) => windows.hasFocus(id),
    isDialog: (id) => windows.isDialog(id),
    stack: () => windows.stack(),
    hasWindowManager: () => windows.hasWindowManager(),
    close: async () => {
      await screenAndInput.close();
      await windows.close();
    },
  };
}
