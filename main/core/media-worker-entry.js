// The media worker thread's entry (media-worker.ts starts it). Plain JavaScript, as
// main/solardesk.js and the Electron entry are: it registers tsx in this thread for
// the TypeScript job modules, whatever started the process.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

const unregister = register();
const { prepareFor, runMediaJob } = await import('./media-jobs.ts');
// Every TypeScript module is loaded now. What loads later (pdf.js, on a worker's first
// PDF) is plain JavaScript, which Node loads in a second where tsx takes several.
await unregister();
parentPort.on('message', async ({ id, job }) => {
  try {
    await prepareFor(job);
    // The job's time limit starts now.
    parentPort.postMessage({ id, running: true });
    const result = await runMediaJob(job);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error?.message ?? String(error), code: error?.code } });
  }
});
parentPort.postMessage({ ready: true });
