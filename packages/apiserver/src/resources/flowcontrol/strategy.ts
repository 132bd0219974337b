import {
  validateObjectMeta,
  validateObjectMetaUpdate,
  type FlowSchema,
  type ObjectMetaOptions,
  type PriorityLevelConfiguration,
} from '@cluster/apimachinery';
import type { ResourceStrategy } from '../../registry/strategy.js';
import { ageColumn, nameColumn } from '../../tables/columns.js';
import { ageOf } from '../../tables/human-duration.js';
import { column } from '../apps/workload/table.js';
import { bumpGenerationOnSpecChange, statusSubresource } from '../status-subresource.js';
import { validateConditions, validateFlowSchemaFields, validatePriorityLevelFields } from './validation.js';

const metaOptions: ObjectMetaOptions = { namespaced: false, nameValidator: 'subdomain' };

/** Upstream's v1beta2 defaults: matchingPrecedence 1000; shares 30; queues 64, hand 8, length 50. Mutates. */
export function defaultFlowSchema(fs: FlowSchema): void {
  fs.spec ??= {};
  if (!fs.spec.matchingPrecedence) fs.spec.matchingPrecedence = 1000;
}

export function defaultPriorityLevel(pl: PriorityLevelConfiguration): void {
  const l = pl.spec?.limited;
  if (!l) return;
  if (!l.assuredConcurrencyShares) l.assuredConcurrencyShares = 30;
  const q = l.limitResponse?.queuing;
  if (q) {
    if (!q.queues) q.queues = 64;
    if (!q.handSize) q.handSize = 8;
    if (!q.queueLengthLimit) q.queueLengthLimit = 50;
  }
}

/** FlowSchema (cluster-scoped, status set only through `status`, e.g. the Dangling condition). */
export function flowSchemaStrategy(apiDomain: string) {
  return {
    namespaceScoped: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(fs: FlowSchema) {
      fs.status = {};
      fs.metadata.generation = 1;
      defaultFlowSchema(fs);
    },
    prepareForUpdate(fs: FlowSchema, old: FlowSchema) {
      fs.status = old.status ?? {};
      defaultFlowSchema(fs);
      bumpGenerationOnSpecChange(fs, old);
    },
    validate: (fs: FlowSchema) => [...validateObjectMeta(fs.metadata, metaOptions), ...validateFlowSchemaFields(fs, apiDomain)],
    validateUpdate: (fs: FlowSchema, old: FlowSchema) => [...validateObjectMetaUpdate(fs.metadata, old.metadata, metaOptions), ...validateFlowSchemaFields(fs, apiDomain)],
    subresources: { status: statusSubresource<FlowSchema>(metaOptions, (fs) => validateConditions(fs.status?.conditions)) },
    table: {
      columns: [
        nameColumn,
        column('PriorityLevel', 'string', 'The priority level this schema sends requests to.'),
        column('MatchingPrecedence', 'string', 'Lower values are matched first.'),
        column('DistinguisherMethod', 'string', 'How requests are split into flows.'),
        ageColumn,
        column('MissingPL', 'string', 'Whether the referenced priority level is missing.'),
      ],
      cells: (fs: FlowSchema) => {
        const dangling = fs.status?.conditions?.find((c) => c.type === 'Dangling');
        return [
          fs.metadata.name ?? '',
          fs.spec?.priorityLevelConfiguration?.name ?? '',
          String(fs.spec?.matchingPrecedence ?? ''),
          fs.spec?.distinguisherMethod?.type ?? '<none>',
          ageOf(fs.metadata.creationTimestamp, new Date()),
          dangling?.status ?? '?',
        ];
      },
    },
  } satisfies ResourceStrategy<FlowSchema>;
}

/** PriorityLevelConfiguration (cluster-scoped, with `status`). */
export function priorityLevelStrategy(apiDomain: string) {
  return {
    namespaceScoped: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(pl: PriorityLevelConfiguration) {
      pl.status = {};
      pl.metadata.generation = 1;
      defaultPriorityLevel(pl);
    },
    prepareForUpdate(pl: PriorityLevelConfiguration, old: PriorityLevelConfiguration) {
      pl.status = old.status ?? {};
      defaultPriorityLevel(pl);
      bumpGenerationOnSpecChange(pl, old);
    },
    validate: (pl: PriorityLevelConfiguration) => [...validateObjectMeta(pl.metadata, metaOptions), ...validatePriorityLevelFields(pl, apiDomain)],
    validateUpdate: (pl: PriorityLevelConfiguration, old: PriorityLevelConfiguration) => [
      ...validateObjectMetaUpdate(pl.metadata, old.metadata, metaOptions),
      ...validatePriorityLevelFields(pl, apiDomain),
    ],
    subresources: { status: statusSubresource<PriorityLevelConfiguration>(metaOptions, (pl) => validateConditions(pl.status?.conditions)) },
    table: {
      columns: [
        nameColumn,
        column('Type', 'string', 'Exempt or Limited.'),
        column('AssuredConcurrencyShares', 'string', 'Share of the server concurrency this level gets.'),
        column('Queues', 'string', 'Number of queues.'),
        column('HandSize', 'string', 'Queues each flow is shuffle-sharded over.'),
        column('QueueLengthLimit', 'string', 'Requests a queue holds at most.'),
        ageColumn,
      ],
      cells: (pl: PriorityLevelConfiguration) => {
        const l = pl.spec?.limited;
        const q = l?.limitResponse?.queuing;
        const or = (v: number | undefined) => (v === undefined ? '<none>' : String(v));
        return [
          pl.metadata.name ?? '',
          pl.spec?.type ?? '',
          or(l?.assuredConcurrencyShares),
          or(q?.queues),
          or(q?.handSize),
          or(q?.queueLengthLimit),
          ageOf(pl.metadata.creationTimestamp, new Date()),
        ];
      },
    },
  } satisfies ResourceStrategy<PriorityLevelConfiguration>;
}
