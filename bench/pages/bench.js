/* SPDX-License-Identifier: MIT */
// The harness of every ivwl-bench page: counts requestAnimationFrame
// callbacks over a measured window and writes the result to the console,
// which chromium (--enable-logging=stderr) and firefox (dom.* prefs) copy
// to their stderr, where ivwl-bench reads it.
//
// The URL's query sets the window: ?warmup=MS&measure=MS.  Lines written:
//   ivwl-bench: ready page=NAME viewport=WxH
//   ivwl-bench: measure page=NAME
//   ivwl-bench: done page=NAME frames=N ms=T fps=F raf_frames=N
//               raf_fps=F viewport=WxH [more]
// A page calls ivwlBench.run(name, hooks): hooks.frame(t) on every
// animation frame, hooks.begin() when the window starts, hooks.stop()
// once it is over (the page goes still, so nothing more is committed),
// hooks.extra() -> "k=v ..." for the done line.  frames are the
// animation frames unless hooks.frames() counts them (the video page:
// video frames shown, as a video's frames come slower than the
// display's).
"use strict";

const ivwlBench = {
  run(name, hooks) {
    const q = new URLSearchParams(location.search);
    const warmup = Number(q.get("warmup") || 5000);
    const measure = Number(q.get("measure") || 15000);
    const say = (s) => console.log("ivwl-bench: " + s);
    const viewport = () => `viewport=${innerWidth}x${innerHeight}`;
    let first = null, start = null, frames = 0, done = false;

    function tick(t) {
      if (done)
        return;
      if (hooks.frame)
        hooks.frame(t);
      if (first === null) {
        first = t;
        say(`ready page=${name} ${viewport()}`);
      } else if (start === null && t - first >= warmup) {
        start = t;
        frames = 0;
        if (hooks.begin)
          hooks.begin();
        say(`measure page=${name}`);
      } else if (start !== null) {
        frames++;
        if (t - start >= measure) {
          done = true;
          const ms = t - start;
          const shown = hooks.frames ? hooks.frames() : frames;
          const extra = hooks.extra ? " " + hooks.extra() : "";
          if (hooks.stop)
            hooks.stop();
          say(`done page=${name} frames=${shown} ms=${ms.toFixed(1)} ` +
              `fps=${(shown * 1000 / ms).toFixed(2)} raf_frames=${frames} ` +
              `raf_fps=${(frames * 1000 / ms).toFixed(2)} ${viewport()}` +
              extra);
          return;
        }
      }
      requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  },
};
