import './RoofScene.css';
import { useEffect, useRef } from 'react';
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import type { DesignSite } from '../../../../shared/design-types.ts';
import { useResolvedTheme } from '../app/use-app-theme.ts';
import { boundsOf, compassAzimuth, type FacetPlane, facetPlane, type LocalPoint, openRing, panelView, toLocalMetres } from '../../design/roof-geometry.ts';

// three.js is y-up; the scene maps east -> x, up -> y, north -> -z.
const toVector = (point: LocalPoint, height: number) => new THREE.Vector3(point.east, height, -point.north);

/** A flat polygon through the given 3D points (triangulated on its footprint). */
function polygonGeometry(outline: LocalPoint[], heightAt: (point: LocalPoint) => number): THREE.BufferGeometry {
  const triangles = THREE.ShapeUtils.triangulateShape(outline.map((point) => new THREE.Vector2(point.east, point.north)), []);
  const geometry = new THREE.BufferGeometry().setFromPoints(outline.map((point) => toVector(point, heightAt(point))));
  geometry.setIndex(triangles.flat());
  geometry.computeVertexNormals();
  return geometry;
}

/** The walls under a facet, from the ground to its roof edge. */
function wallGeometry(plane: FacetPlane): THREE.BufferGeometry {
  const points: THREE.Vector3[] = [];
  plane.outline.forEach((point, index) => {
    const next = plane.outline[(index + 1) % plane.outline.length]!;
    const [a, b] = [toVector(point, 0), toVector(next, 0)];
    const [c, d] = [toVector(next, plane.heightAt(next)), toVector(point, plane.heightAt(point))];
    points.push(a, b, c, a, c, d);
  });
  const geometry = new THREE.BufferGeometry().setFromPoints(points);
  geometry.computeVertexNormals();
  return geometry;
}

function buildScene(site: DesignSite, systemUuid: string | null, isDark: boolean) {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(isDark ? 0x1b2330 : 0xe8eef5);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x556677, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.4);
  sun.position.set(-20, 40, 25);
  scene.add(sun);

  const planes = site.autoFacetsGeoJson.features.map((facet) => facetPlane(facet, site.scene_origin));
  const roofMaterial = new THREE.MeshStandardMaterial({ color: 0xb5654a, side: THREE.DoubleSide, roughness: 0.8 });
  const wallMaterial = new THREE.MeshStandardMaterial({ color: isDark ? 0x9aa4b1 : 0xd9d4cb, side: THREE.DoubleSide, roughness: 0.9 });
  for (const plane of planes) {
    scene.add(new THREE.Mesh(polygonGeometry(plane.outline, plane.heightAt), roofMaterial));
    scene.add(new THREE.Mesh(wallGeometry(plane), wallMaterial));
  }

  const panelMaterial = new THREE.MeshStandardMaterial({ color: 0x1d3f8f, metalness: 0.3, roughness: 0.35, side: THREE.DoubleSide });
  const panelEdges = new THREE.LineBasicMaterial({ color: 0xc8d6f0 });
  const planeById = new Map(planes.map((plane) => [plane.facetId, plane]));
  for (const panel of site.auto_design_geojson.features) {
    if (systemUuid && panel.properties.system_uuid !== systemUuid) continue;
    const plane = planeById.get(panel.properties.facet_id);
    if (!plane) continue;
    const outline = openRing(panel.geometry.coordinates[0] ?? []).map((position) => toLocalMetres(site.scene_origin, position));
    // A little above the roof, so the panel never fights the roof surface for depth.
    const geometry = polygonGeometry(outline, (point) => plane.heightAt(point) + 0.06);
    scene.add(new THREE.Mesh(geometry, panelMaterial));
    scene.add(new THREE.LineLoop(new THREE.BufferGeometry().setFromPoints(outline.map((point) => toVector(point, plane.heightAt(point) + 0.07))), panelEdges));
  }

  const bounds = boundsOf(
    planes.flatMap((plane) => plane.outline),
    planes.flatMap((plane) => plane.outline.map((point) => plane.heightAt(point))),
  );
  const ground = new THREE.Mesh(
    new THREE.CircleGeometry(bounds.span * 2.5, 48),
    new THREE.MeshStandardMaterial({ color: isDark ? 0x2f4a35 : 0x9cc08f, roughness: 1 }),
  );
  ground.rotation.x = -Math.PI / 2;
  ground.position.set(bounds.center.east, -0.01, -bounds.center.north);
  scene.add(ground);
  return { scene, bounds };
}

/**
 * How far the view may turn from the first one, either way (radians): about 70°, so the
 * panels stay in sight; the house never turns its back with the panels hidden (issue 28, item 18).
 */
const TURN_LIMIT = (70 / 180) * Math.PI;
/** From straight above to 15° above the ground: lower, a tilted roof hides its own panels. */
const HIGHEST_POLAR = 0;
const LOWEST_POLAR = (75 / 180) * Math.PI;

/** The roof facets and panel layout in 3D; drag to orbit (within limits), scroll to zoom, Reset view to go back. Renders only when something changes. */
export function RoofScene({ site, systemUuid }: { site: DesignSite; systemUuid: string | null }) {
  const containerRef = useRef<HTMLDivElement>(null);
  const resetRef = useRef<(() => void) | null>(null);
  const isDark = useResolvedTheme() === 'dark';

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    let renderer: THREE.WebGLRenderer;
    try {
      // preserveDrawingBuffer keeps the last frame readable (screenshots, the e2e pixel check).
      renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    } catch (error) {
      container.classList.add('roof-scene-failed');
      container.textContent = `The 3D view needs WebGL, which is not available here (${(error as Error).message}).`;
      return;
    }
    const { scene, bounds } = buildScene(site, systemUuid, isDark);
    renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    renderer.domElement.dataset.testid = 'roof-canvas';
    container.appendChild(renderer.domElement);

    const camera = new THREE.PerspectiveCamera(45, 1, 0.1, bounds.span * 50);
    // The camera opens on the side the panels face, looking at them (roof-geometry.ts panelView);
    // with no panels, on the whole roof from the south-east.
    const view = panelView(site, systemUuid);
    const target = view
      ? new THREE.Vector3(view.center.east, view.height, -view.center.north)
      : new THREE.Vector3(bounds.center.east, bounds.top / 2, -bounds.center.north);
    const from = view ? view.facing : { east: 0.63, north: -0.77 };
    const distance = bounds.span * 1.1;
    camera.position.set(target.x + from.east * distance, target.y + bounds.span * 0.75, target.z - from.north * distance);
    container.dataset.panelFacing = view ? view.azimuth.toFixed(0) : '';
    const controls = new OrbitControls(camera, renderer.domElement);
    controls.target.copy(target);
    // The turn is limited around the first view, here rather than with OrbitControls' azimuth limits: those let a
    // fast drag through when the allowed range crosses the -z axis (its angle wraps at ±180°).
    const firstAzimuth = Math.atan2(camera.position.x - target.x, camera.position.z - target.z);
    let lastTurn = 0;
    const keepTurnWithinLimit = () => {
      const offset = new THREE.Spherical().setFromVector3(camera.position.clone().sub(controls.target));
      const turn = Math.atan2(Math.sin(offset.theta - firstAzimuth), Math.cos(offset.theta - firstAzimuth));
      if (Math.abs(turn) <= TURN_LIMIT) {
        lastTurn = turn;
        return;
      }
      // Past the limit: stop at the edge the drag came from (a turn near 180° could be read as either side).
      const side = Math.abs(turn) > Math.PI - TURN_LIMIT && lastTurn !== 0 ? Math.sign(lastTurn) : Math.sign(turn);
      offset.theta = firstAzimuth + side * TURN_LIMIT;
      lastTurn = side * TURN_LIMIT;
      camera.position.copy(controls.target).add(new THREE.Vector3().setFromSpherical(offset));
      camera.lookAt(controls.target);
    };
    controls.minPolarAngle = HIGHEST_POLAR;
    controls.maxPolarAngle = LOWEST_POLAR;
    controls.minDistance = bounds.span * 0.3;
    controls.maxDistance = bounds.span * 5;
    const render = () => {
      keepTurnWithinLimit();
      renderer.render(scene, camera);
      // Where the camera stands, seen from what it looks at: compass degrees (the e2e camera check reads it).
      const offset = camera.position.clone().sub(controls.target);
      container.dataset.cameraFrom = compassAzimuth({ east: offset.x, north: -offset.z }).toFixed(0);
      // The whole camera (position and target), for tests that compare one view with another.
      container.dataset.camera = [...camera.position.toArray(), ...controls.target.toArray()].map((value) => value.toFixed(2)).join(',');
    };
    controls.addEventListener('change', render);
    controls.update();
    // The first view, for Reset view (OrbitControls.reset goes back to it and announces the change, which renders).
    controls.saveState();
    resetRef.current = () => controls.reset();

    const resize = () => {
      const width = Math.max(container.clientWidth, 100);
      const height = Math.max(container.clientHeight, 100);
      renderer.setSize(width, height);
      camera.aspect = width / height;
      camera.updateProjectionMatrix();
      render();
    };
    const observer = new ResizeObserver(resize);
    observer.observe(container);
    resize();

    return () => {
      resetRef.current = null;
      observer.disconnect();
      controls.dispose();
      scene.traverse((object) => {
        if (object instanceof THREE.Mesh || object instanceof THREE.LineLoop) {
          object.geometry.dispose();
          (Array.isArray(object.material) ? object.material : [object.material]).forEach((material) => material.dispose());
        }
      });
      renderer.dispose();
      renderer.domElement.remove();
    };
  }, [site, systemUuid, isDark]);

  return (
    <div className="roof-scene-frame">
      <div ref={containerRef} className="roof-scene" data-testid="roof-scene" aria-label="3D view of the roof and panels" role="img" />
      <button type="button" className="button roof-scene-reset" title="Back to the first view, facing the panels" onClick={() => resetRef.current?.()}>
        Reset view
      </button>
    </div>
  );
}
