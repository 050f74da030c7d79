;; K-weighting kernel of bs1770.ts (docs/decisions/127-replaygain-in-the-app.md).
;; Built into bs1770-wasm.ts by `bun scripts/build-wasm.ts`; a test checks they match.
;;
;; A state block (at $st, 16-byte aligned) holds, as f64:
;;   0 pb0, 8 pb1, 16 pb2, 24 pa1, 32 pa2, 40 ra1, 48 ra2   (the two biquads; the RLB's b is 1, -2, 1)
;;   64 x1, 80 x2 (input), 96 y1, 112 y2 (pre output), 128 z1, 144 z2 (RLB output),
;;   160 sum of squares, 176 peak   (two lanes each: channels c and c+1)
;; Samples are interleaved f32 at $p, $stride bytes from one frame to the next.
;; Direct form I (as ffmpeg's ebur128 filter), each output summed so that the
;; loop-carried path is one multiply and one subtraction: the loop is bound by
;; that latency, not by the number of operations.
(module
  (memory (export "memory") 1)

  ;; two adjacent channels in the two lanes of f64x2
  (func (export "pair") (param $st i32) (param $p i32) (param $n i32) (param $stride i32)
    (local $pb0 v128) (local $pb1 v128) (local $pb2 v128) (local $pa1 v128) (local $pa2 v128) (local $ra1 v128) (local $ra2 v128) (local $m2 v128)
    (local $x1 v128) (local $x2 v128) (local $y1 v128) (local $y2 v128) (local $z1 v128) (local $z2 v128) (local $sum v128) (local $peak v128)
    (local $v v128) (local $a v128) (local $y v128) (local $z v128)
    (local.set $pb0 (f64x2.splat (f64.load offset=0 (local.get $st))))
    (local.set $pb1 (f64x2.splat (f64.load offset=8 (local.get $st))))
    (local.set $pb2 (f64x2.splat (f64.load offset=16 (local.get $st))))
    (local.set $pa1 (f64x2.splat (f64.load offset=24 (local.get $st))))
    (local.set $pa2 (f64x2.splat (f64.load offset=32 (local.get $st))))
    (local.set $ra1 (f64x2.splat (f64.load offset=40 (local.get $st))))
    (local.set $ra2 (f64x2.splat (f64.load offset=48 (local.get $st))))
    (local.set $m2 (f64x2.splat (f64.const -2)))
    (local.set $x1 (v128.load offset=64 (local.get $st)))
    (local.set $x2 (v128.load offset=80 (local.get $st)))
    (local.set $y1 (v128.load offset=96 (local.get $st)))
    (local.set $y2 (v128.load offset=112 (local.get $st)))
    (local.set $z1 (v128.load offset=128 (local.get $st)))
    (local.set $z2 (v128.load offset=144 (local.get $st)))
    (local.set $sum (v128.load offset=160 (local.get $st)))
    (local.set $peak (v128.load offset=176 (local.get $st)))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $v (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $p))))
        ;; peak = peak < |v| ? |v| : peak
        (local.set $peak (f64x2.pmax (local.get $peak) (f64x2.abs (local.get $v))))
        ;; y = (pb0 v + (pb1 x1 + pb2 x2 - pa2 y2)) - pa1 y1
        (local.set $y (f64x2.sub (f64x2.add (f64x2.mul (local.get $pb0) (local.get $v)) (f64x2.sub (f64x2.add (f64x2.mul (local.get $pb1) (local.get $x1)) (f64x2.mul (local.get $pb2) (local.get $x2))) (f64x2.mul (local.get $pa2) (local.get $y2)))) (f64x2.mul (local.get $pa1) (local.get $y1))))
        ;; z = (y + (y2 - 2 y1 - ra2 z2)) - ra1 z1
        (local.set $z (f64x2.sub (f64x2.add (local.get $y) (f64x2.sub (f64x2.add (local.get $y2) (f64x2.mul (local.get $m2) (local.get $y1))) (f64x2.mul (local.get $ra2) (local.get $z2)))) (f64x2.mul (local.get $ra1) (local.get $z1))))
        (local.set $sum (f64x2.add (local.get $sum) (f64x2.mul (local.get $z) (local.get $z))))
        (local.set $x2 (local.get $x1))
        (local.set $x1 (local.get $v))
        (local.set $y2 (local.get $y1))
        (local.set $y1 (local.get $y))
        (local.set $z2 (local.get $z1))
        (local.set $z1 (local.get $z))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (v128.store offset=64 (local.get $st) (local.get $x1))
    (v128.store offset=80 (local.get $st) (local.get $x2))
    (v128.store offset=96 (local.get $st) (local.get $y1))
    (v128.store offset=112 (local.get $st) (local.get $y2))
    (v128.store offset=128 (local.get $st) (local.get $z1))
    (v128.store offset=144 (local.get $st) (local.get $z2))
    (v128.store offset=160 (local.get $st) (local.get $sum))
    (v128.store offset=176 (local.get $st) (local.get $peak)))

  ;; one channel (mono, or the last of an odd count), lane 0 of the same layout
  (func (export "single") (param $st i32) (param $p i32) (param $n i32) (param $stride i32)
    (local $pb0 f64) (local $pb1 f64) (local $pb2 f64) (local $pa1 f64) (local $pa2 f64) (local $ra1 f64) (local $ra2 f64) (local $m2 f64)
    (local $x1 f64) (local $x2 f64) (local $y1 f64) (local $y2 f64) (local $z1 f64) (local $z2 f64) (local $sum f64) (local $peak f64)
    (local $v f64) (local $a f64) (local $y f64) (local $z f64)
    (local.set $pb0 (f64.load offset=0 (local.get $st)))
    (local.set $pb1 (f64.load offset=8 (local.get $st)))
    (local.set $pb2 (f64.load offset=16 (local.get $st)))
    (local.set $pa1 (f64.load offset=24 (local.get $st)))
    (local.set $pa2 (f64.load offset=32 (local.get $st)))
    (local.set $ra1 (f64.load offset=40 (local.get $st)))
    (local.set $ra2 (f64.load offset=48 (local.get $st)))
    (local.set $m2 (f64.const -2))
    (local.set $x1 (f64.load offset=64 (local.get $st)))
    (local.set $x2 (f64.load offset=80 (local.get $st)))
    (local.set $y1 (f64.load offset=96 (local.get $st)))
    (local.set $y2 (f64.load offset=112 (local.get $st)))
    (local.set $z1 (f64.load offset=128 (local.get $st)))
    (local.set $z2 (f64.load offset=144 (local.get $st)))
    (local.set $sum (f64.load offset=160 (local.get $st)))
    (local.set $peak (f64.load offset=176 (local.get $st)))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $v (f64.promote_f32 (f32.load (local.get $p))))
        (local.set $a (f64.abs (local.get $v)))
        (local.set $peak (select (local.get $a) (local.get $peak) (f64.lt (local.get $peak) (local.get $a))))
        ;; y = (pb0 v + (pb1 x1 + pb2 x2 - pa2 y2)) - pa1 y1
        (local.set $y (f64.sub (f64.add (f64.mul (local.get $pb0) (local.get $v)) (f64.sub (f64.add (f64.mul (local.get $pb1) (local.get $x1)) (f64.mul (local.get $pb2) (local.get $x2))) (f64.mul (local.get $pa2) (local.get $y2)))) (f64.mul (local.get $pa1) (local.get $y1))))
        ;; z = (y + (y2 - 2 y1 - ra2 z2)) - ra1 z1
        (local.set $z (f64.sub (f64.add (local.get $y) (f64.sub (f64.add (local.get $y2) (f64.mul (local.get $m2) (local.get $y1))) (f64.mul (local.get $ra2) (local.get $z2)))) (f64.mul (local.get $ra1) (local.get $z1))))
        (local.set $sum (f64.add (local.get $sum) (f64.mul (local.get $z) (local.get $z))))
        (local.set $x2 (local.get $x1))
        (local.set $x1 (local.get $v))
        (local.set $y2 (local.get $y1))
        (local.set $y1 (local.get $y))
        (local.set $z2 (local.get $z1))
        (local.set $z1 (local.get $z))
        (local.set $p (i32.add (local.get $p) (local.get $stride)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (f64.store offset=64 (local.get $st) (local.get $x1))
    (f64.store offset=80 (local.get $st) (local.get $x2))
    (f64.store offset=96 (local.get $st) (local.get $y1))
    (f64.store offset=112 (local.get $st) (local.get $y2))
    (f64.store offset=128 (local.get $st) (local.get $z1))
    (f64.store offset=144 (local.get $st) (local.get $z2))
    (f64.store offset=160 (local.get $st) (local.get $sum))
    (f64.store offset=176 (local.get $st) (local.get $peak))))
