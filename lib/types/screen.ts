/** What every layer passes around: boxes on the screen, and the screen's raw pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Screen {
  width: number;
  height: number;
  /** 4 bytes a pixel, in `format` order. */
  data: Buffer;
  format: 'bgrx' | 'rgba';
}
