import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDistance, haversineMeters, isUsablePosition } from './geo.ts';

test('haversine: known distances within a fraction of a percent', () => {
  // Sydney Opera House to Melbourne's Flinders Street station: about 714 km.
  const sydneyToMelbourne = haversineMeters({ lat: -33.8568, lon: 151.2153 }, { lat: -37.8183, lon: 144.9671 });
  assert.ok(Math.abs(sydneyToMelbourne - 714_000) < 3_000, `${sydneyToMelbourne}`);
  // 0.001 degree of latitude is about 111 m anywhere.
  const step = haversineMeters({ lat: -27.47, lon: 153.02 }, { lat: -27.471, lon: 153.02 });
  assert.ok(Math.abs(step - 111.2) < 0.5, `${step}`);
  assert.equal(haversineMeters({ lat: 10, lon: 20 }, { lat: 10, lon: 20 }), 0);
  // Across the antimeridian is short, not half the world.
  assert.ok(haversineMeters({ lat: 0, lon: 179.999 }, { lat: 0, lon: -179.999 }) < 300);
});

test('usable positions: no 0,0, nothing off the globe, no NaN', () => {
  assert.equal(isUsablePosition({ lat: -33.8, lon: 151.2 }), true);
  assert.equal(isUsablePosition({ lat: 0, lon: 0 }), false);
  assert.equal(isUsablePosition({ lat: 91, lon: 0 }), false);
  assert.equal(isUsablePosition({ lat: Number.NaN, lon: 1 }), false);
  assert.equal(isUsablePosition(null), false);
});

test('distances read as people say them', () => {
  assert.equal(formatDistance(42), '40 m');
  assert.equal(formatDistance(3), '1 m');
  assert.equal(formatDistance(1234), '1.2 km');
  assert.equal(formatDistance(12_400), '12 km');
});
