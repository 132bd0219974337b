import type { ResourceRegistration } from '../registry/registration.js';
import { configMaps } from './core/configmaps/register.js';
import { namespaces } from './core/namespaces/register.js';

/** Every resource this server serves: adding one is one strategy module plus one line here. */
export const builtinResources: readonly ResourceRegistration[] = [namespaces, configMaps];
