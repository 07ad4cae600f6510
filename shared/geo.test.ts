import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distanceMeters, formatDistance } from './geo.ts';

test('distances: Sydney to Melbourne is about 713 km; a point to itself is 0; across the antimeridian is short', () => {
  const sydney = { latitude: -33.8688, longitude: 151.2093 };
  const melbourne = { latitude: -37.8136, longitude: 144.9631 };
  assert.ok(Math.abs(distanceMeters(sydney, melbourne) - 713_400) < 3_000, String(distanceMeters(sydney, melbourne)));
  assert.equal(distanceMeters(sydney, sydney), 0);
  assert.ok(distanceMeters({ latitude: 0, longitude: 179.999 }, { latitude: 0, longitude: -179.999 }) < 250);
});

test('distances read at a glance', () => {
  assert.equal(formatDistance(83), '80 m');
  assert.equal(formatDistance(1449), '1.4 km');
  assert.equal(formatDistance(12_345), '12 km');
});
