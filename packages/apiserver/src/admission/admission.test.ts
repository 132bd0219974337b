import { newForbidden } from '@cluster/apimachinery';
import { runAdmission, runMutatingAdmission, type AdmissionAttributes, type AdmissionPlugin } from './admission.js';
import type { ResourceInfo } from '../registry/resource-info.js';

const resource = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as unknown as ResourceInfo;

function attrs(): AdmissionAttributes {
  return { operation: 'CREATE', resource, subresource: '', namespace: 'ns', name: 'a', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, dryRun: false };
}

/** A plugin that records its calls in `log`; `wait` makes a step answer with a promise, `fail` reject. */
function plugin(name: string, log: string[], opts: { wait?: 'admit' | 'validate'; fail?: 'admit' | 'validate'; reinvoke?: boolean } = {}): AdmissionPlugin {
  const step = (kind: 'admit' | 'validate', a: AdmissionAttributes): Promise<void> | void => {
    log.push(`${name}.${kind}${a.reinvocation?.reinvoking ? ' again' : ''}`);
    const fail = () => {
      throw newForbidden({ group: '', resource: 'configmaps' }, 'a', `${name} says no`);
    };
    if (opts.wait === kind) {
      return Promise.resolve().then(() => {
        log.push(`${name}.${kind} done`);
        if (kind === 'admit' && opts.reinvoke && !a.reinvocation) a.reinvocation = { reinvoking: false, shouldReinvoke: true, state: new Map() };
        if (opts.fail === kind) fail();
      });
    }
    if (opts.fail === kind) fail();
  };
  return { name, admit: (a) => step('admit', a), validate: (a) => step('validate', a) };
}

describe('admission runners', () => {
  it('return nothing (no promise) when every plugin answers at once, each plugin run in order once', () => {
    const log: string[] = [];
    const observed: string[] = [];
    const observe = (type: string, op: string, rejected: boolean) => void observed.push(`${type} ${op} ${rejected}`);
    const plugins = [plugin('a', log), plugin('b', log)];
    expect(runMutatingAdmission(plugins, attrs(), observe)).toBeUndefined();
    expect(runAdmission(plugins, attrs(), observe)).toBeUndefined();
    expect(log).toEqual(['a.admit', 'b.admit', 'a.validate', 'b.validate']);
    expect(observed).toEqual(['admit CREATE false', 'validate CREATE false']);
  });

  it('go on after a pending plugin in order, and resolve after the last', async () => {
    const log: string[] = [];
    const observed: string[] = [];
    const observe = (type: string, op: string, rejected: boolean) => void observed.push(`${type} ${op} ${rejected}`);
    const plugins = [plugin('a', log), plugin('b', log, { wait: 'admit' }), plugin('c', log, { wait: 'validate' }), plugin('d', log)];
    const mutating = runMutatingAdmission(plugins, attrs(), observe);
    expect(mutating).toBeInstanceOf(Promise);
    expect(log).toEqual(['a.admit', 'b.admit']);
    await mutating;
    expect(log).toEqual(['a.admit', 'b.admit', 'b.admit done', 'c.admit', 'd.admit']);
    log.length = 0;
    const validating = runAdmission(plugins, attrs(), observe);
    expect(validating).toBeInstanceOf(Promise);
    await validating;
    expect(log).toEqual(['a.validate', 'b.validate', 'c.validate', 'c.validate done', 'd.validate']);
    expect(observed).toEqual(['admit CREATE false', 'validate CREATE false']);
  });

  it('stop at the first rejection, thrown at once by a plugin that answered at once, with the step observed as rejected', async () => {
    for (const waitFirst of [false, true]) {
      const log: string[] = [];
      const observed: string[] = [];
      const observe = (type: string, op: string, rejected: boolean) => void observed.push(`${type} ${op} ${rejected}`);
      const first = plugin('a', log, waitFirst ? { wait: 'admit' } : {});
      const plugins = [first, plugin('b', log, { fail: 'admit' }), plugin('c', log)];
      const run = async () => {
        const p = runMutatingAdmission(plugins, attrs(), observe);
        if (p) await p;
      };
      await expect(run()).rejects.toThrow('b says no');
      expect(log.filter((l) => !l.endsWith('done'))).toEqual(['a.admit', 'b.admit']);
      expect(observed).toEqual(['admit CREATE true']);
    }
    const log: string[] = [];
    const plugins = [plugin('a', log), plugin('b', log, { wait: 'validate', fail: 'validate' }), plugin('c', log)];
    await expect(Promise.resolve(runAdmission(plugins, attrs()))).rejects.toThrow('b says no');
    expect(log).toEqual(['a.validate', 'b.validate', 'b.validate done']);
    expect(() => runAdmission([plugin('x', [], { fail: 'validate' })], attrs())).toThrow('x says no');
  });

  it('run the mutating chain once more when a plugin asks for reinvocation', async () => {
    const log: string[] = [];
    const a = attrs();
    await runMutatingAdmission([plugin('a', log), plugin('hook', log, { wait: 'admit', reinvoke: true }), plugin('c', log)], a);
    expect(log).toEqual(['a.admit', 'hook.admit', 'hook.admit done', 'c.admit', 'a.admit again', 'hook.admit again', 'hook.admit done', 'c.admit again']);
    expect(a.reinvocation?.reinvoking).toBe(true);
  });
});
